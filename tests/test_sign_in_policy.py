"""A city's admin reads its city's sign-in policy for its own staff, as set; another city's is
answered as one that does not exist."""

from tests import factories


def admin_of(client, session, city):
    factories.jurisdiction(session, city)
    return factories.bearer(factories.token(client, *factories.oauth_client(session, role="admin", subject=[city])))


def test_a_city_admin_reads_the_policy_it_set_and_no_other_citys(client, session):
    victorville, placentia = admin_of(client, session, "victorville"), admin_of(client, session, "placentia")
    path = "/v1/jurisdictions/victorville/sign-in-policy"

    never = client.get(path, headers=victorville)
    assert never.status_code == 200 and never.json == {"staff_totp_required": False, "updated_at": None}

    assert client.put(path, headers=victorville, json={"staff_totp_required": True}).status_code == 200
    read = client.get(path, headers=victorville)
    assert read.status_code == 200 and read.json["staff_totp_required"] is True and read.json["updated_at"]

    foreign = client.get(path, headers=placentia)
    missing = client.get("/v1/jurisdictions/atlantis/sign-in-policy", headers=placentia)
    assert foreign.status_code == missing.status_code == 404
    assert foreign.mimetype == "application/problem+json" and foreign.json["detail"] == missing.json["detail"]
    assert (
        client.get("/v1/jurisdictions/placentia/sign-in-policy", headers=placentia).json["staff_totp_required"] is False
    )
