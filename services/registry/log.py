"""Who changed a city's registry, and when: each write notes itself in its own transaction,
with the caller's client and, for a person's token, the person."""

from domain.clock import now
from storage.models import RegistryChange, new_id


def note(session, principal, *, action, subject=None, fields=(), detail=None, jurisdiction_id=None):
    """Add the change (not committed): `action` such as `fse.created`; `subject` the row made
    or changed (its id made here where the row has none yet); `fields` the fields written."""
    if subject is not None and getattr(subject, "id", None) is None:
        subject.id = new_id()
    session.add(
        RegistryChange(
            id=new_id(),
            jurisdiction_id=jurisdiction_id or principal.jurisdiction_id,
            at=now(),
            action=action,
            subject_id=subject.id if subject is not None else None,
            detail=detail if detail is not None else {"fields": sorted(str(name) for name in fields)},
            client_id=principal.client_pk,
            person_id=principal.person_id,
        )
    )


def made_by(principal, *, command: str | None = None) -> dict:
    """The columns saying who recorded a dated fact (`storage.registry_models.MadeBy`): the
    caller's client and person, or, with no caller, the command line's `command`."""
    if principal is None:
        return {"by_client_id": None, "by_person_id": None, "by_command": command}
    return {"by_client_id": principal.client_pk, "by_person_id": principal.person_id, "by_command": None}
