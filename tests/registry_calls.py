"""Bodies and calls of the registry's API that several tests make: a restaurant, a hauler, a
disposal site, a CSV import."""

import io

from tests import factories

HAULER = {
    "name": "Desert Pumping",
    "licence_number": "DP-1",
    "licence_expires_on": "2028-06-30",
    "licence_issued_on": "2024-01-01",
    "registered_on": "2024-01-01",
}
SITE = {
    "name": "High Desert Renewables",
    "address": "17150 Smoke Tree St, Hesperia",
    "facility_permit_number": "HDR-22-0091",
    "waste_types": ["grease_interceptor_waste", "grease_trap_waste"],
    "approved_from": "2024-01-01",
}
FSE = {
    "name": "Mesa Grill",
    "address": "14500 Bear Valley Rd",
    "apn": "3087-211-05",
    "jurisdiction": "victorville",
    "operator_name": "Ana Ruiz",
    "operator_email": "ana@example.com",
}


def upload(client, token, kind, content, filename="rows.csv"):
    return client.post(
        f"/v1/imports/{kind}",
        headers=factories.bearer(token),
        data={"file": (io.BytesIO(content), filename)},
        content_type="multipart/form-data",
    )


def imported(client, token, kind, content):
    """A registry CSV (text) imported through the API: its report, the import having answered 200."""
    response = upload(client, token, kind, content.encode(), filename=f"{kind}.csv")
    assert response.status_code == 200, response.json
    return response.json
