"""How a filing is written: its neighbours read under the ticket's lock, its new rows inserted
without the unit of work, its transaction committed once and made again where the database
ended it for another filing.

A use case sees `attempts` and `commit` (its unit of work), `neighbours`, `insert` and `joined`.
The speed of the path lives here: the new rows go in one statement, with the COMMIT in the
same round trip when they are all the transaction writes, and the lock on a disposal ticket
goes ahead of the read it guards.
"""

from collections import deque
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Uuid, bindparam, cast, literal, null, select, union_all
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import joinedload, make_transient_to_detached, selectinload
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key

from domain.dates import local_date, start_of_day
from storage import service_chain, turns
from storage.manifest_models import ManifestRevision
from storage.prebuilt import Prebuilt, insert_rows

# The new rows of a filing not yet sent (see `insert`), kept with the session's transaction.
_STAGED = "fogx.filing_rows"
# The revisions last read as neighbours, kept referenced (see `_revisions`).
_HELD = "fogx.held_revisions"
_HELD_REVISIONS = 1_000


@dataclass(frozen=True)
class Surroundings:
    """What one revision is checked against, and whose findings it can change."""

    same_service: list  # the device's other loads within a day of it
    same_ticket: list  # the other loads on its disposal ticket
    previous_qualifying: datetime | None  # the device's qualifying service before this one
    following: ManifestRevision | None  # the device's next service after this one
    latest_qualifying: datetime | None  # the device's latest qualifying service of another manifest


def attempts(session):
    """The tries of one unit of work, each a context to run the work and `commit` in:

        for attempt in filings.attempts(session):
            with attempt:
                ...
                filings.commit(session)

    An error rolls everything back. Where the database ended the transaction to break a
    deadlock between filings whose neighbours cross, the work is made again (up to
    `turns.ATTEMPTS` tries in all); any other error goes on up."""
    for number in range(1, turns.ATTEMPTS + 1):
        attempt = _Attempt(session, last=number == turns.ATTEMPTS)
        yield attempt
        if attempt.succeeded:
            return


class _Attempt:
    def __init__(self, session, *, last):
        self.session, self.last, self.succeeded = session, last, False

    def __enter__(self):
        return self

    def __exit__(self, kind, error, _traceback):
        if kind is None:
            self.succeeded = True
            return False
        _rolled_back(self.session)
        return isinstance(error, DBAPIError) and turns.ended_for_another(error) and not self.last


def commit(session):
    """Commit the unit of work. New rows that are all it writes go with the COMMIT, in one
    round trip; with other changes, they go first and the session writes the rest."""
    staged = session.info.pop(_STAGED, None)
    if staged is not None:
        quiet = not (session.new or session.dirty or session.deleted or service_chain.marked(session))
        insert_rows(session.connection(), staged[1], last=quiet)
    session.commit()


def insert(session, manifest, rows):
    """The new `manifest` and its `rows` (ORM instances with every column set,
    `storage.models.unflushed`), written in this transaction: with its next read of
    `neighbours`, when `joined`, or else with the `commit`."""
    session.info[_STAGED] = (manifest, tuple(rows))


def joined(session, manifest):
    """The manifest just inserted, a row of the session from now on, for what is attached to it next."""
    _send(session, adopt=True)
    return manifest


def neighbours(session, revision, *, zone: str, same_service: timedelta) -> Surroundings:
    """Every neighbour of `revision` in one round trip (ids), then the rows not held already.

    Loads on one disposal ticket (one site's ticket on one local day in `zone`) are read once
    every filing on the ticket before this one committed: the ticket's lock goes ahead of the
    read, in its round trip."""
    _send(session, adopt=True)  # the rows inserted are part of the neighbourhood, as themselves
    session.flush()
    delivered_from = delivered_to = None
    if revision.disposal_delivered_at is not None:
        day = local_date(revision.disposal_delivered_at, zone)
        delivered_from, delivered_to = start_of_day(day, zone), start_of_day(day + timedelta(days=1), zone)
    connection = session.connection()
    completed = revision.service_completed_at
    found = SURROUNDINGS.all(
        connection,
        {
            "device_id": revision.device_id,
            "manifest_id": revision.manifest_id,
            "lo": completed - same_service,
            "hi": completed + same_service,
            "site_id": revision.disposal_site_id,
            "ticket": revision.disposal_ticket_number,
            "delivered_from": delivered_from,
            "delivered_to": delivered_to,
        },
        ahead=turns.ticket_holds(connection, revision.disposal_site_id, revision.disposal_ticket_number),
    )
    rows = _revisions(session, {row.id for row in found if row.role in ("service", "ticket", "following")})

    def moment(role):
        return next((row.service_completed_at for row in found if row.role == role), None)

    return Surroundings(
        same_service=[rows[row.id] for row in found if row.role == "service"],
        same_ticket=[rows[row.id] for row in found if row.role == "ticket"],
        previous_qualifying=moment("previous"),
        following=next((rows[row.id] for row in found if row.role == "following"), None),
        latest_qualifying=moment("latest"),
    )


def _rolled_back(session):
    session.info.pop(_STAGED, None)
    session.rollback()


def _send(session, *, adopt):
    staged = session.info.pop(_STAGED, None)
    if staged is None:
        return
    manifest, rows = staged
    insert_rows(session.connection(), rows)
    if adopt:
        _adopt(session, manifest)


def _adopt(session, manifest):
    """The inserted manifest joins the session as the rows it is, not as pending ones: what is
    attached to it next is written beside it, and a neighbour read returns these objects, not
    copies the session would refuse."""
    for instance in (manifest, *manifest.revisions, *(f for r in manifest.revisions for f in r.findings)):
        for relationship in type(instance).__mapper__.relationships:
            if relationship.uselist and relationship.key in instance.__dict__:
                set_committed_value(instance, relationship.key, list(instance.__dict__[relationship.key]))
        make_transient_to_detached(instance)
    session.add(manifest)


def _revisions(session, ids) -> dict:
    """The revisions of `ids` by id: those the session holds already as they are, the rest in
    one query with their manifests and findings (what judging them reads). Re-judging the
    loads of one service asks for the same neighbours again for each of them, so the last
    revisions loaded are kept referenced (the session's identity map alone would let them go)."""
    rows, missing = {}, []
    for revision_id in ids:
        held = session.identity_map.get(identity_key(ManifestRevision, revision_id))
        if held is None:
            missing.append(revision_id)
        else:
            rows[revision_id] = held
    if missing:
        loaded = (
            session.scalars(
                select(ManifestRevision)
                .where(ManifestRevision.id.in_(missing))
                .options(joinedload(ManifestRevision.manifest), selectinload(ManifestRevision.findings))
            )
            .unique()
            .all()
        )
        session.info.setdefault(_HELD, deque(maxlen=_HELD_REVISIONS)).extend(loaded)
        rows.update((r.id, r) for r in loaded)
    return rows


def _surroundings_statement():
    """One statement for every neighbour of a revision, built once: each filing only binds it."""
    # Revisions in force only (each manifest's current one), read without the manifests.
    here = select(ManifestRevision.id, ManifestRevision.service_completed_at).where(ManifestRevision.in_force)
    # Only the moment of the previous and latest qualifying services is needed: those probes
    # stay inside the partial index of the services that count, off the revisions' heap.
    when = select(cast(null(), Uuid).label("id"), ManifestRevision.service_completed_at).where(
        ManifestRevision.in_force
    )
    completed = ManifestRevision.service_completed_at
    device = ManifestRevision.device_id == bindparam("device_id")
    others = ManifestRevision.manifest_id != bindparam("manifest_id")
    parts = [
        ("service", here.where(device, others, completed.between(bindparam("lo"), bindparam("hi")))),
        (
            "previous",
            when.where(device, others, ManifestRevision.qualifying, completed < bindparam("lo"))
            .order_by(completed.desc())
            .limit(1),
        ),
        ("following", here.where(device, completed > bindparam("hi")).order_by(completed).limit(1)),
        ("latest", when.where(device, others, ManifestRevision.qualifying).order_by(completed.desc()).limit(1)),
        # One load: a site's ticket on one local day (a site may use a number again another
        # day). No ticket binds NULL, which matches nothing.
        (
            "ticket",
            here.where(
                others,
                ManifestRevision.disposal_site_id == bindparam("site_id"),
                ManifestRevision.disposal_ticket_number == bindparam("ticket"),
                ManifestRevision.disposal_delivered_at >= bindparam("delivered_from"),
                ManifestRevision.disposal_delivered_at < bindparam("delivered_to"),
            ),
        ),
    ]
    return union_all(*(select(literal(role).label("role"), part.subquery()) for role, part in parts))


SURROUNDINGS = Prebuilt(_surroundings_statement())
