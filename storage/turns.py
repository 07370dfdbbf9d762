"""Filings whose findings read each other come in turns: the locks a filing holds until it commits.

A filing on a device holds the device's permit (`services.filing.resolving`); loads on one disposal
ticket, which may come from many restaurants, hold the ticket. Each filing then reads its
neighbours only after the one before it committed, so neither misses the other's load.
"""

import hashlib

from sqlalchemy import bindparam, select
from sqlalchemy.exc import DBAPIError

from storage.prebuilt import Prebuilt
from storage.registry_models import Permit

# PostgreSQL's codes for a transaction it ended so that another could go on (a deadlock broken,
# a serialization failure): nothing of it was kept, and made again it waits its turn.
_ENDED_FOR_ANOTHER = frozenset({"40P01", "40001"})
ATTEMPTS = 3

# The first key of every ticket's advisory lock: no other lock of this database shares it.
_TICKETS = 0x46_4F_47_54  # "FOGT"


def ticket_holds(connection, site_id, ticket_number) -> tuple[bytes, ...]:
    """The commands that hold a site's ticket until the transaction ends, to send ahead of a
    read (`Prebuilt.all(ahead=...)`): none without a ticket, nor on SQLite, where a filing
    holds the whole database already (`hold_database`)."""
    if ticket_number is None or connection.dialect.name != "postgresql":
        return ()
    digest = hashlib.blake2b(f"{site_id}\x00{ticket_number}".encode(), digest_size=4).digest()
    key = int.from_bytes(digest, "big", signed=True)
    return (f"SELECT pg_advisory_xact_lock({_TICKETS}, {key})".encode(),)


_PERMIT = Prebuilt(select(Permit.id).where(Permit.id == bindparam("id")).with_for_update(key_share=True))


def hold_permit(connection, permit_id):
    """Hold a permit, as a filing on one of its devices does, until the transaction ends."""
    if connection.dialect.name == "sqlite":
        hold_database(connection)
    else:
        _PERMIT.all(connection, {"id": permit_id})


def hold_database(connection):
    """On SQLite, take the database's one write lock now, before the filing reads its
    neighbours (a read there runs outside any transaction until the first write); elsewhere
    nothing: the rows a filing reads hold it its turn."""
    if connection.dialect.name != "sqlite":
        return
    driver = connection.connection.driver_connection
    if not driver.in_transaction:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def ended_for_another(error: DBAPIError) -> bool:
    """Whether the database ended the transaction so that another could go on: made again, it waits its turn."""
    return getattr(error.orig, "sqlstate", None) in _ENDED_FOR_ANOTHER
