"""The registry facts a filing is judged by, read at the size of a county: a hauler that works
in every city, with a fleet in each, is read row for row, not as a product of its rows."""
from sqlalchemy import event

from services.filing_facts import load_hauler_facts
from tests import factories

CITIES = ("victorville", "placentia", "colusa", "san-clemente", "tracy")


def test_a_hauler_in_every_city_is_read_without_multiplying_its_rows(app, session):
    fleet = tuple((f"TRK-{n}", 3000) for n in range(12))
    hauler = factories.hauler(session, cities=CITIES, vehicles=fleet)
    city = factories.jurisdiction(session, "tracy")
    session.expunge_all()  # read from the database, as a new request would
    fetched, statements = [], []

    def count(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("SELECT"):
            statements.append(statement)
            fetched.append(cursor.rowcount)  # -1 where the driver does not count (SQLite)

    engine = session.get_bind()
    event.listen(engine, "after_cursor_execute", count)
    try:
        facts = load_hauler_facts(session, hauler.id, city.id)
    finally:
        event.remove(engine, "after_cursor_execute", count)
    collections = ("hauler_licences", "hauler_registrations", "vehicles")
    assert all(sum(f"{table} " in statement for table in collections) <= 1 for statement in statements)
    rows = 1 + len(CITIES) * (1 + 1 + len(fleet))  # the hauler, and each city's licence, registration, fleet
    assert sum(max(n, 0) for n in fetched) <= rows  # joined, the same read fetched 5 x 5 x 60 = 1,500 rows
    assert len(facts.licences) == 1 and len(facts.registrations) == 1 and len(facts.vehicles) == len(fleet)
