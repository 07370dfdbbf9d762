"""Who read an FSE's record, and when: every download, and every read of its manifests by a city
or another organisation, is noted; a city's admin asks."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.clock import now
from domain.dates import local_date
from services.errors import NotFound
from services.ids import id_or_none
from storage import reach
from storage.models import Fse, Jurisdiction, OAuthClient
from storage.people import Person, RecordRead


def note_read(engine, principal, *, fse_id, format, period_from, period_to):
    """Noted in a transaction of its own, committed before the record is sent: a reading
    request's own session never writes."""
    with Session(bind=engine) as session:
        session.add(
            RecordRead(
                fse_id=fse_id,
                client_id=principal.client_pk,
                person_id=principal.person_id,
                format=format,
                period_from=period_from,
                period_to=period_to,
                read_at=now(),
            )
        )
        session.commit()


def note_manifest_reads(engine, principal, *, manifests, format):
    """A read of manifests (`format`: manifests, manifest, revisions, correction or scan), one row
    an FSE they are of, its period the service days shown. The restaurant reading its own is
    not noted; a city, a hauler or a site reading them is, as a download of the record is."""
    if principal.role == "fse" or not manifests:
        return
    with Session(bind=engine) as session:
        zones = dict(
            session.execute(
                select(Jurisdiction.id, Jurisdiction.time_zone).where(
                    Jurisdiction.id.in_({m.jurisdiction_id for m in manifests})
                )
            ).all()
        )
        days = {}
        for manifest in manifests:
            in_force = next(r for r in manifest.revisions if r.revision == manifest.current_revision)
            days.setdefault(manifest.fse_id, []).append(
                local_date(in_force.service_completed_at, zones[manifest.jurisdiction_id])
            )
        session.add_all(
            RecordRead(
                fse_id=fse_id,
                client_id=principal.client_pk,
                person_id=principal.person_id,
                format=format,
                period_from=min(shown),
                period_to=max(shown),
                read_at=now(),
            )
            for fse_id, shown in days.items()
        )
        session.commit()


def reads(session, principal, *, fse_id) -> list:
    """Every noted read of the FSE's record, the newest first: (read, client, person or None)."""
    fse = session.scalar(select(Fse).where(Fse.id == id_or_none(fse_id), Fse.id.in_(reach.fse_ids(principal))))
    if fse is None:
        raise NotFound("No such FSE within your reach.")
    return session.execute(
        select(RecordRead, OAuthClient, Person)
        .join(OAuthClient, OAuthClient.id == RecordRead.client_id)
        .outerjoin(Person, Person.id == RecordRead.person_id)
        .where(RecordRead.fse_id == fse.id)
        .order_by(RecordRead.read_at.desc(), RecordRead.id.desc())
    ).all()
