"""Prebuilt statements answer exactly as SQLAlchemy would, errors and lost connections included."""

import pytest
from sqlalchemy import BigInteger, String, bindparam, insert, literal_column, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from services.filing.resolving import RESOLVE
from storage.models import Fse, Jurisdiction, Permit, new_id
from storage.prebuilt import Prebuilt, fetch_all, insert_rows
from tests import factories


def test_rows_match_what_sqlalchemy_returns(app, session):
    permit = factories.permit(session)
    factories.device(session, permit_row=permit)
    params = {"number": permit.permit_number, "tag": "GI-1"}

    prebuilt = RESOLVE.all(session.connection(), params)
    plain = session.connection().execute(RESOLVE.statement, params).all()

    # Dates, UTC datetimes, floats, booleans, UUIDs and JSON (the city's citations) alike.
    assert [row._asdict() for row in prebuilt] == [row._asdict() for row in plain]
    assert prebuilt[0].citations["manifest_deadline_hours"].startswith("Victorville")
    assert prebuilt[0].twenty_five_percent_rule == 0.25
    assert RESOLVE.first(session.connection(), {"number": "no such permit", "tag": "GI-1"}) is None


def test_datetimes_come_back_in_utc(app, session):
    """Whatever time zone the connection is in: the driver answers in it, the column type in UTC."""
    fse = factories.fse(session)
    if session.bind.dialect.name == "postgresql":
        session.execute(text("SET TIME ZONE 'America/Los_Angeles'"))
    statement = Prebuilt(select(Fse.created_at).where(Fse.id == bindparam("id")))
    (row,) = statement.all(session.connection(), {"id": fse.id})
    assert row.created_at == fse.created_at
    assert row.created_at.utcoffset().total_seconds() == 0


def test_a_unique_violation_is_sqlalchemys_integrity_error(app, session):
    permit = factories.permit(session)
    duplicate = Prebuilt(
        insert(Permit.__table__).values(
            id=bindparam("id"),
            jurisdiction_id=bindparam("jurisdiction_id"),
            fse_id=bindparam("fse_id"),
            permit_number=bindparam("number"),
            kind="regular",
            issued_on=bindparam("issued_on"),
            expires_on=bindparam("issued_on"),
            created_at=bindparam("created_at"),
        )
    )
    with pytest.raises(IntegrityError):
        duplicate.all(
            session.connection(),
            {
                "id": new_id(),
                "jurisdiction_id": permit.jurisdiction_id,
                "fse_id": permit.fse_id,
                "number": permit.permit_number,
                "issued_on": permit.issued_on,
                "created_at": permit.created_at,
            },
        )
    session.rollback()
    assert session.scalar(select(Permit.permit_number).where(Permit.id == permit.id)) == permit.permit_number


@pytest.mark.postgresql_only
def test_a_lost_connection_is_reported_and_the_pool_renewed(app, session):
    engine = app.extensions["fogx.engine"]
    factories.jurisdiction(session)
    statement = Prebuilt(select(Jurisdiction.code))
    with Session(bind=engine) as victim:
        assert statement.all(victim.connection()) == [("victorville",)]
        pid = victim.connection().execute(text("SELECT pg_backend_pid()")).scalar()
        session.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        session.commit()
        with pytest.raises(DBAPIError) as raised:
            statement.all(victim.connection())
        assert raised.value.connection_invalidated
    with Session(bind=engine) as next_one:
        assert statement.all(next_one.connection()) == [("victorville",)]


def test_statements_of_one_shape_keep_their_own_values(app, session):
    first, second = factories.permit(session), factories.permit(session)

    def number_of(permit):
        statement = select(Permit.permit_number).where(Permit.id == permit.id).limit(5)
        return fetch_all(session.connection(), statement)

    # The second statement reuses the first one's compiled plan, with its own bound values.
    assert number_of(first) == [(first.permit_number,)]
    assert number_of(second) == [(second.permit_number,)]


def test_ids_read_as_text_are_the_text_of_the_ids(app, session):
    """For rows bound for JSON: the id as its text where the driver can send it so (PostgreSQL),
    a UUID elsewhere; the same id either way, and the next statement gets UUIDs again."""
    permit = factories.permit(session)
    statement = select(Permit.id, Permit.fse_id).where(Permit.id == permit.id).limit(1)
    (as_text,) = fetch_all(session.connection(), statement, ids_as_text=True)
    assert [str(value) for value in as_text] == [str(permit.id), str(permit.fse_id)]
    if session.get_bind().dialect.name == "postgresql":
        assert all(type(value) is str for value in as_text)
    assert fetch_all(session.connection(), statement) == [(permit.id, permit.fse_id)]


def test_a_list_bound_to_in_goes_through_sqlalchemy(app, session):
    """IN (list) is expanded per execution; the driver cannot take the compiled text as it is."""
    first, second, third = (factories.permit(session) for _ in range(3))
    wanted = Prebuilt(
        select(Permit.permit_number).where(Permit.id.in_([first.id, third.id])).order_by(Permit.permit_number)
    )
    expected = sorted([(first.permit_number,), (third.permit_number,)])
    assert [tuple(r) for r in wanted.all(session.connection())] == expected
    built = select(Permit.permit_number).where(Permit.id.in_([second.id])).limit(5)
    assert fetch_all(session.connection(), built) == [(second.permit_number,)]


@pytest.mark.postgresql_only
def test_a_read_opens_no_transaction_and_a_lone_write_commits_by_itself(app, session):
    """No BEGIN round trip for a read before anything is written, nor BEGIN and COMMIT for a
    statement that is all a transaction would write; inside an open transaction both stay in it."""
    from psycopg.pq import TransactionStatus

    jurisdiction = factories.jurisdiction(session)
    session.commit()
    driver = session.connection().connection.driver_connection
    codes = Prebuilt(select(Jurisdiction.code))
    assert codes.all(session.connection()) == [("victorville",)]
    assert driver.info.transaction_status == TransactionStatus.IDLE and not driver.autocommit
    fse = factories.unflushed_fse(jurisdiction, "Alone")
    insert_rows(session.connection(), [fse], alone=True)
    assert driver.info.transaction_status == TransactionStatus.IDLE
    with Session(bind=app.extensions["fogx.engine"]) as elsewhere:
        assert elsewhere.get(Fse, fse.id) is not None  # committed, before any commit of ours
    session.rollback()
    assert session.get(Fse, fse.id) is not None

    # Once the transaction is open (a write), reads and lone writes stay in it.
    second = factories.unflushed_fse(jurisdiction, "Inside")
    session.execute(text("UPDATE jurisdictions SET name = name WHERE id = :id"), {"id": jurisdiction.id})
    driver = session.connection().connection.driver_connection  # the pool's, since the rollback
    insert_rows(session.connection(), [second], alone=True)
    names = Prebuilt(select(Fse.name).where(Fse.id == bindparam("id")))
    assert names.all(session.connection(), {"id": second.id}) == [("Inside",)]  # its own write
    assert driver.info.transaction_status == TransactionStatus.INTRANS
    with Session(bind=app.extensions["fogx.engine"]) as elsewhere:
        assert elsewhere.get(Fse, second.id) is None
    session.rollback()
    assert session.get(Fse, second.id) is None


@pytest.mark.postgresql_only
def test_a_locking_read_opens_the_transaction(app, session):
    from psycopg.pq import TransactionStatus

    factories.jurisdiction(session)
    session.commit()
    driver = session.connection().connection.driver_connection
    locking = Prebuilt(select(Jurisdiction.code).with_for_update())
    assert locking.all(session.connection()) == [("victorville",)]
    assert driver.info.transaction_status == TransactionStatus.INTRANS
    session.rollback()

    # Opened as the connection is set to open its transactions.
    with app.extensions["fogx.engine"].connect() as connection:
        connection = connection.execution_options(isolation_level="REPEATABLE READ")
        assert locking.all(connection) == [("victorville",)]
        assert connection.exec_driver_sql("SHOW transaction_isolation").scalar() == "repeatable read"
        connection.rollback()


@pytest.mark.postgresql_only
def test_a_lock_sent_ahead_is_held_until_the_transaction_ends(app, session):
    """A read with a lock ahead of it opens the transaction and holds the lock to its end; a
    lock that cannot be taken raises, and the read after it is not run."""
    from storage.turns import ticket_holds

    factories.jurisdiction(session)
    session.commit()
    reading = Prebuilt(select(Jurisdiction.code))
    (lock,) = ticket_holds(session.connection(), "site", "T-1")
    assert reading.all(session.connection(), ahead=(lock,)) == [("victorville",)]
    key = lock.decode().removeprefix("SELECT pg_advisory_xact_lock(").removesuffix(")")
    with app.extensions["fogx.engine"].connect() as elsewhere:
        taken = f"SELECT pg_try_advisory_xact_lock({key})"
        assert elsewhere.exec_driver_sql(taken).scalar() is False
        session.rollback()
        assert elsewhere.exec_driver_sql(taken).scalar() is True
        elsewhere.rollback()
    with pytest.raises(DBAPIError, match="not a key"):
        reading.all(session.connection(), ahead=(b"SELECT pg_advisory_xact_lock(1, 'not a key')",))
    session.rollback()


@pytest.mark.postgresql_only
def test_a_last_write_commits_the_transaction_in_its_own_round_trip(app, session):
    """A filing's lock opens its transaction and its insert, the last write, closes it: both
    what came before in the transaction and the rows are committed, and the session's own
    commit after has nothing left to send. A last write that fails commits nothing."""
    from psycopg.pq import TransactionStatus

    jurisdiction = factories.jurisdiction(session)
    session.commit()
    locking = Prebuilt(select(Jurisdiction.code).where(Jurisdiction.id == bindparam("id")).with_for_update())
    assert locking.all(session.connection(), {"id": jurisdiction.id}) == [("victorville",)]
    driver = session.connection().connection.driver_connection
    assert driver.info.transaction_status == TransactionStatus.INTRANS
    session.execute(text("UPDATE jurisdictions SET name = 'Renamed' WHERE id = :id"), {"id": jurisdiction.id})
    fse = factories.unflushed_fse(jurisdiction, "Last")
    insert_rows(session.connection(), [fse], last=True)
    assert driver.info.transaction_status == TransactionStatus.IDLE
    with Session(bind=app.extensions["fogx.engine"]) as elsewhere:
        assert elsewhere.get(Fse, fse.id) is not None
        assert elsewhere.get(Jurisdiction, jurisdiction.id).name == "Renamed"
    session.commit()

    # The same rows again: the insert fails, the transaction is left to roll back, and the
    # write before it in the transaction is not committed either.
    assert locking.all(session.connection(), {"id": jurisdiction.id}) == [("victorville",)]
    session.execute(text("UPDATE jurisdictions SET name = 'Again' WHERE id = :id"), {"id": jurisdiction.id})
    duplicate = factories.unflushed_fse(jurisdiction, "Last")
    duplicate.id = fse.id
    with pytest.raises(IntegrityError):
        insert_rows(session.connection(), [duplicate], last=True)
    session.rollback()
    with Session(bind=app.extensions["fogx.engine"]) as elsewhere:
        assert elsewhere.get(Jurisdiction, jurisdiction.id).name == "Renamed"


@pytest.mark.postgresql_only
def test_a_statement_is_prepared_once_per_connection_and_outlives_a_rollback(app, session):
    """A prebuilt statement is prepared on a connection the first time it runs there and
    reused after. psycopg deallocates every prepared statement on a rollback once it has
    prepared any of its own (after a few runs of one statement): it must prepare none, or the
    next prebuilt statement would be asked of a name the server has forgotten."""
    jurisdiction = factories.jurisdiction(session)
    session.commit()
    codes = Prebuilt(select(Jurisdiction.code).where(Jurisdiction.id == bindparam("id")))

    def prepared():
        return session.execute(text("SELECT count(*) FROM pg_prepared_statements")).scalar()

    assert codes.all(session.connection(), {"id": jurisdiction.id}) == [("victorville",)]
    before = prepared()
    assert codes.all(session.connection(), {"id": jurisdiction.id}) == [("victorville",)]
    assert prepared() == before
    for _ in range(8):  # often enough that psycopg would prepare it, if it prepared anything
        session.execute(select(Jurisdiction.name).where(Jurisdiction.id == jurisdiction.id)).scalar()
    session.execute(text("UPDATE jurisdictions SET name = name"))
    session.rollback()
    assert codes.all(session.connection(), {"id": jurisdiction.id}) == [("victorville",)]


@pytest.mark.postgresql_only
def test_values_of_one_parameter_in_types_of_their_own(app, session):
    """The type a value is sent as depends on the value (a small integer, a large one, a
    null): each combination is its own prepared statement, and all of them answer."""
    echo = Prebuilt(
        select(
            bindparam("n", type_=BigInteger).label("n"),
            bindparam("word", type_=String).label("word"),
            literal_column("'100%'").label("percent"),
        )
    )
    for n, word in ((1, "a"), (2**40, "b"), (None, None), (7, None), (-(2**20), "c")):
        (row,) = echo.all(session.connection(), {"n": n, "word": word})
        assert (row.n, row.word, row.percent) == (n, word, "100%")


@pytest.mark.postgresql_only
def test_past_the_limit_statements_run_unnamed(app, session, monkeypatch):
    from storage.db import make_engine
    from storage.prebuilt import _Wire

    monkeypatch.setattr(_Wire, "LIMIT", 0)
    factories.jurisdiction(session)
    session.commit()
    engine = make_engine(app.config["DATABASE_URL"])  # connections of its own, new
    try:
        with Session(bind=engine) as fresh:
            for _ in range(3):
                assert Prebuilt(select(Jurisdiction.code)).all(fresh.connection()) == [("victorville",)]
            names = fresh.execute(text("SELECT name FROM pg_prepared_statements")).scalars().all()
            assert not [name for name in names if name.startswith("fogx_")]
    finally:
        engine.dispose()
