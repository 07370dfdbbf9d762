"""A disposal site two cities approve reports its loads to each through the clerks that city
made: a ticket one city's clerks reported is not taken from the other city's, and neither
city's clerks read, repeat or learn the other's receipt."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import select

from storage.models import DisposalReceipt
from tests import factories, people_factories

CITIES = ("victorville", "placentia")


@pytest.fixture
def shared(client, session):
    site = factories.disposal_site(session, cities=CITIES)
    hauler = factories.hauler(session, cities=CITIES)
    clerks = {
        city: people_factories.person_token(
            client,
            session,
            email=f"gate@{city}.test",
            organisation="site",
            role="clerk",
            site_id=site.id,
            jurisdiction_id=factories.jurisdiction(session, city).id,
        )
        for city in CITIES
    }
    whole_site = factories.token(client, *factories.oauth_client(session, role="site", subject=[site.id]))
    return site, hauler.licence_number, clerks, whole_site


def load(licence, gallons, ticket="T-77"):
    return {
        "ticket_number": ticket,
        "hauler_licence_number": licence,
        "vehicle_id": "TRK-1",
        "waste_type": "grease_interceptor_waste",
        "gallons_received": gallons,
        "received_at": (datetime.now(UTC) - timedelta(hours=1)).isoformat(),
    }


def test_each_citys_clerks_report_the_same_ticket_for_their_city(client, session, shared):
    site, licence, clerks, _ = shared
    post = lambda city, body: client.post("/v1/receipts", json=body, headers=factories.bearer(clerks[city]))  # noqa: E731
    victorville, placentia = load(licence, 1400), load(licence, 900)
    first = post("victorville", victorville)
    assert first.status_code == 201, first.json
    second = post("placentia", placentia)
    assert second.status_code == 201, second.json
    # Each city's clerks read their own receipt only, by list and by id.
    for city, mine, theirs in (("victorville", first, second), ("placentia", second, first)):
        headers = factories.bearer(clerks[city])
        listed = client.get("/v1/receipts", headers=headers).json["items"]
        assert [r["id"] for r in listed] == [mine.json["id"]]
        assert client.get(f"/v1/receipts/{theirs.json['id']}", headers=headers).status_code == 404
    # Sent again, each is the one already made; with another body, a 409 about their own.
    again = post("placentia", placentia)
    assert again.status_code == 200 and again.json["id"] == second.json["id"]
    changed = post("placentia", load(licence, 950))
    assert changed.status_code == 409
    assert "900" not in changed.json["detail"] and "1400" not in changed.json["detail"]
    rows = session.scalars(select(DisposalReceipt).where(DisposalReceipt.site_id == site.id)).all()
    assert sorted(r.gallons_received for r in rows) == [900, 1400]


def test_the_whole_sites_receipt_stands_for_every_city(client, session, shared):
    _, licence, clerks, whole_site = shared
    body = load(licence, 1400, ticket="T-78")
    made = client.post("/v1/receipts", json=body, headers=factories.bearer(whole_site))
    assert made.status_code == 201, made.json
    # A city's clerks cannot report that ticket again for their city, nor read what the site said.
    other = client.post(
        "/v1/receipts", json=load(licence, 900, ticket="T-78"), headers=factories.bearer(clerks["placentia"])
    )
    assert other.status_code == 409
    assert "different body" not in other.json["detail"]
    same = client.post("/v1/receipts", json=body, headers=factories.bearer(clerks["placentia"]))
    assert same.status_code == 409


def test_the_whole_site_sees_every_citys_receipt_of_the_ticket(client, session, shared):
    _, licence, clerks, whole_site = shared
    body = load(licence, 1400, ticket="T-79")
    made = client.post("/v1/receipts", json=body, headers=factories.bearer(clerks["victorville"]))
    assert made.status_code == 201, made.json
    again = client.post("/v1/receipts", json=body, headers=factories.bearer(whole_site))
    assert again.status_code == 200 and again.json["id"] == made.json["id"]
    other = client.post("/v1/receipts", json=load(licence, 900, ticket="T-79"), headers=factories.bearer(whole_site))
    assert other.status_code == 409 and "different body" in other.json["detail"]


def test_receipts_made_before_0038_keep_the_city_their_clerks_reported_for(app, client, session, shared):
    """The upgrade reads each receipt's city from the principal that sent it."""
    _, licence, clerks, whole_site = shared
    for token, ticket in ((clerks["placentia"], "T-80"), (whole_site, "T-81")):
        made = client.post("/v1/receipts", json=load(licence, 1000, ticket=ticket), headers=factories.bearer(token))
        assert made.status_code == 201, made.json
    migrations = Path(__file__).resolve().parent.parent / "migrations"
    factories.migrated_again(app, session, down_to=ScriptDirectory(str(migrations)).get_revision("0038").down_revision)
    scopes = dict(session.execute(select(DisposalReceipt.ticket_number, DisposalReceipt.scope_jurisdiction_id)).all())
    assert scopes == {"T-80": factories.jurisdiction(session, "placentia").id, "T-81": None}
