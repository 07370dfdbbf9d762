"""A disposal site that reports the loads it received, and the city's reconciliation of them."""

from datetime import timedelta

import pytest

from tests import factories
from tests.manifest_world import NOW, build, iso
from tests.spec import load_spec, schema_errors

RECEIVED = NOW - timedelta(days=4)


def receipt(ticket, licence, *, gallons=1450, vehicle="TRK-1", at=RECEIVED, **overrides):
    return {
        "ticket_number": ticket,
        "hauler_licence_number": licence,
        "vehicle_id": vehicle,
        "waste_type": "grease_interceptor_waste",
        "gallons_received": gallons,
        "received_at": iso(at),
        **overrides,
    }


@pytest.fixture
def site_world(client, session, frozen_clock):
    """A Victorville restaurant, hauler and site; the site reports from ten days before NOW."""
    frozen_clock(NOW - timedelta(days=10))
    world = build(client, session)
    site_client = factories.oauth_client(session, role="site", subject=[world.site.id])
    frozen_clock(NOW)
    world.reauthenticate()
    world.site_token = factories.token(client, *site_client)
    world.licence = world.hauler.licences[0].licence_number
    return world


def post_receipt(world, body, token=None):
    return world.client.post("/v1/receipts", json=body, headers=factories.bearer(token or world.site_token))


def reconciliation(client, session, city="victorville", **query):
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[city]))
    response = client.get("/v1/audit/disposal-reconciliation", query_string=query, headers=factories.bearer(auditor))
    assert response.status_code == 200, response.json
    if query.get("format") != "csv":
        spec = load_spec()
        assert schema_errors(spec, spec["components"]["schemas"]["DisposalReconciliation"], response.json) == []
    return response
