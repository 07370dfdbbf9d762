"""The registry facts a filing is judged by, read at the size of a county: a hauler that works
in every city, with a fleet in each, is read row for row, not as a product of its rows."""

from sqlalchemy import event
from sqlalchemy.orm import Session

from services.filing_facts import load_hauler_facts
from tests import factories

CITIES = ("victorville", "placentia", "colusa", "san-clemente", "tracy")


def test_a_hauler_in_every_city_is_read_without_multiplying_its_rows(app, session):
    fleet = tuple((f"TRK-{n}", 3000) for n in range(12))
    hauler = factories.hauler(session, cities=CITIES, vehicles=fleet)
    city = factories.jurisdiction(session, "tracy")
    session.expunge_all()  # read from the database, as a new request would
    fetched, statements = [], []

    def count(state):
        # Each read's rows, counted as the session receives them, on every driver alike.
        statements.append(str(state.statement.compile(session.get_bind())))
        frozen = state.invoke_statement().freeze()
        fetched.append(len(frozen.data))
        return frozen()

    event.listen(Session, "do_orm_execute", count)
    try:
        facts = load_hauler_facts(session, hauler.id, city.id)
    finally:
        event.remove(Session, "do_orm_execute", count)
    collections = ("hauler_licences", "hauler_registrations", "vehicles")
    assert all(sum(f"{table} " in statement for table in collections) <= 1 for statement in statements)
    rows = 1 + len(CITIES) * (1 + 1 + len(fleet))  # the hauler, and each city's licence, registration, fleet
    assert statements and sum(fetched) <= rows  # joined, the same read fetched 5 x 5 x 60 = 1,500 rows
    assert len(facts.licences) == 1 and len(facts.registrations) == 1 and len(facts.vehicles) == len(fleet)
