"""The change feed: what happened to the manifests within a caller's reach, in order, for
dispatch software and city systems that would rather be told than ask again and again.

Each change is a row written in the transaction that made it (`storage.models.Change`). The
feed gives them out in `(txid, seq)` order. A counter alone would not do on PostgreSQL: two
transactions take their numbers in one order and may commit in the other, and a reader that
had passed the later number would never see the earlier one. Ordered by the writing
transaction's id instead, the feed gives out only the changes of transactions older than
every writing transaction still open on fogx's database: each of those has committed or never
will, and every change still to come belongs to a transaction at least as new. Transactions of
other databases on the same server (another city system, a `pg_dump` elsewhere) and readers
(a long report) hold no id the feed waits on. On SQLite writers take turns: the counter alone
orders them.
"""

import base64
import struct

from sqlalchemy import BigInteger, and_, false, literal_column, select, tuple_

from services.errors import Invalid
from storage import reach
from storage.models import Change, unflushed

FILED = "manifest.filed"
CORRECTED = "manifest.corrected"
FINDINGS_CHANGED = "manifest.findings_changed"
DOCUMENTS_ATTACHED = "manifest.documents_attached"
PURGED = "manifest.purged"
KINDS = (FILED, CORRECTED, FINDINGS_CHANGED, DOCUMENTS_ATTACHED, PURGED)

_CURSOR = struct.Struct(">qq")
START = (-1, -1)  # before every change


def _columns(manifest, kind, *, at, revision, detail) -> dict:
    return dict(
        kind=kind,
        at=at,
        manifest_id=manifest.id,
        manifest_number=manifest.manifest_number,
        revision=revision,
        hauler_id=manifest.hauler_id,
        fse_id=manifest.fse_id,
        jurisdiction_id=manifest.jurisdiction_id,
        detail=detail,
    )


def entry(manifest, kind, *, at, revision=None, **detail) -> Change:
    """A change for `storage.prebuilt.insert_rows` to write beside the rows it describes."""
    return unflushed(Change, **_columns(manifest, kind, at=at, revision=revision, detail=detail))


def record(session, manifest, *, kind, at, revision=None, **detail):
    """A change written with the session's next flush, in its transaction."""
    session.add(Change(**_columns(manifest, kind, at=at, revision=revision, detail=detail)))


def active_codes(revision) -> list[str]:
    return sorted(f.code for f in revision.findings if f.cleared_at is None)


def _reach(principal):
    if principal.role == "hauler":
        return and_(Change.hauler_id == principal.hauler_id, reach.in_scope(principal, Change.jurisdiction_id))
    if principal.role == "fse":
        return Change.fse_id.in_(principal.fse_ids or [None])
    if principal.role == "site":
        return false()
    return Change.jurisdiction_id == principal.jurisdiction_id


def encode_cursor(txid: int, seq: int) -> str:
    return base64.urlsafe_b64encode(_CURSOR.pack(txid, seq)).decode().rstrip("=")


def cursor_of(change: Change) -> str:
    """The cursor that asks for what follows `change`."""
    return encode_cursor(change.txid, change.seq)


def decode_cursor(cursor: str) -> tuple[int, int]:
    try:
        return _CURSOR.unpack(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, struct.error):
        raise Invalid("The cursor is not one this API gave out.", errors={"cursor": ["Not a valid cursor."]}) from None


# The oldest transaction id still open that may be fogx's: the snapshot's open ids, less those
# a backend of another database holds. An id not found (its transaction just ended) is kept.
_HORIZON = literal_column(
    """(
    SELECT coalesce(
        (SELECT min(x::text::bigint) FROM pg_snapshot_xip(snapshot.s) AS x
         WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity AS a
                           WHERE a.backend_xid = xid(x) AND a.datname <> current_database())),
        pg_snapshot_xmax(snapshot.s)::text::bigint)
    FROM (SELECT pg_current_snapshot() AS s) AS snapshot)""",
    BigInteger,
)


def _settled(session, principal):
    """The caller's changes that no open transaction of fogx's database can precede."""
    query = select(Change).where(_reach(principal))
    if session.get_bind().dialect.name == "postgresql":
        query = query.where(Change.txid < _HORIZON)
    return query


def feed(session, principal, *, cursor=None, limit=100) -> tuple[list[Change], str]:
    """The caller's changes after `cursor`, oldest first, and the cursor to ask with next
    (the same one when nothing new is settled yet)."""
    after = decode_cursor(cursor) if cursor else START
    query = _settled(session, principal).where(tuple_(Change.txid, Change.seq) > tuple_(*after))
    rows = session.scalars(query.order_by(Change.txid, Change.seq).limit(limit)).all()
    return rows, cursor_of(rows[-1]) if rows else encode_cursor(*after)


def end_cursor(session, principal) -> str:
    """The cursor after the caller's last settled change: what follows it is what is new."""
    last = session.scalar(_settled(session, principal).order_by(Change.txid.desc(), Change.seq.desc()).limit(1))
    return cursor_of(last) if last else encode_cursor(*START)
