"""The registry facts a filing is judged by, read at the size of a county: a hauler that works
in every city, with a fleet in each, is read row for row, not as a product of its rows."""

from services.filing.filing_facts import load_hauler_facts
from tests import factories
from tests.statements import counted

CITIES = ("victorville", "placentia", "colusa", "san-clemente", "tracy")


def test_a_hauler_in_every_city_is_read_without_multiplying_its_rows(app, session):
    fleet = tuple((f"TRK-{n}", 3000) for n in range(12))
    hauler = factories.hauler(session, cities=CITIES, vehicles=fleet)
    city = factories.jurisdiction(session, "tracy")
    session.expunge_all()  # read from the database, as a new request would
    # Counted as sent and received, on PostgreSQL off the wire: a read moved to the prebuilt
    # statements of storage/prebuilt.py is counted as well.
    with counted(session) as sent:
        facts = load_hauler_facts(session, hauler.id, jurisdiction_id=city.id)
    collections = ("hauler_licences", "hauler_registrations", "vehicles")
    assert all(sum(f"{table} " in statement for table in collections) <= 1 for statement in sent.statements)
    rows = 1 + len(CITIES) * (1 + 1 + len(fleet))  # the hauler, and each city's licence, registration, fleet
    assert sent.statements and sent.rows <= rows  # joined, the same read fetched 5 x 5 x 60 = 1,500 rows
    assert len(facts.licences) == 1 and len(facts.registrations) == 1 and len(facts.vehicles) == len(fleet)
