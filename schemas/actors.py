"""Who did something, as records show it: the client, or the person through their role."""

from marshmallow import EXCLUDE, Schema, fields, validate

from domain import words
from domain.dates import local


def actor_view(client, person) -> dict | None:
    """A person's act names the person (their membership's client is no one's to call); a
    program's names its client id. None where the record predates keeping it."""
    if client is None and person is None:
        return None
    return {
        "client_id": client.client_id if client is not None and person is None else None,
        "role": client.role if client is not None else None,
        "person_id": str(person.id) if person is not None else None,
        "person_name": person.name if person is not None else None,
    }


def registry_change_view(change, zone_name) -> dict:
    """One change of a city's registry, its time in the city's local time with its offset."""
    by = actor_view(change.client, change.person)
    return {
        "id": str(change.id),
        "at": local(change.at, zone_name).isoformat(),
        "action": change.action,
        "action_words": words.action(change.action),
        "subject_id": str(change.subject_id) if change.subject_id else None,
        "detail": change.detail,
        **{f"by_{name}": value for name, value in by.items()},
    }


class RegistryChangesQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))
    format = fields.String(validate=validate.OneOf(["json", "csv"]))
