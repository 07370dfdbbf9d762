"""A disposal site's admin manages the site's own clerks, within its own city scope: invites
one (the site is its own), lists and withdraws its invitations, lists and removes its people;
another site's, a hauler's or another city's people are not its to reach."""

from tests import factories
from tests import people_factories as pf
from tests.people_factories import mails


def call(client, token, method, path, **body):
    return client.open(path, method=method, json=body or None, headers=factories.bearer(token))


def test_a_site_admin_invites_lists_withdraws_and_removes_its_own_clerks_only(app, client, session):
    site = factories.disposal_site(session, cities=("victorville", "placentia"))
    other = factories.disposal_site(session, cities=("victorville",))
    hauler = factories.hauler(session, cities=("victorville",))
    placentia = factories.jurisdiction(session, "placentia").id
    boss = pf.person_token(
        client,
        session,
        email="boss@site.example",
        organisation="site",
        role="admin",
        site_id=site.id,
        jurisdiction_id=placentia,
    )
    gate = pf.person(
        session,
        email="gate@site.example",
        organisation="site",
        role="clerk",
        site_id=site.id,
        jurisdiction_id=placentia,
    )
    # The same site's clerk Victorville made, and another site's: neither is this admin's.
    elsewhere = pf.person(
        session,
        email="vv@site.example",
        organisation="site",
        role="clerk",
        site_id=site.id,
        jurisdiction_id=factories.jurisdiction(session, "victorville").id,
    )
    stranger = pf.person(session, email="x@other.example", organisation="site", role="clerk", site_id=other.id)

    invited = call(client, boss, "POST", "/v1/invitations", email="new@site.example", organisation="site", role="clerk")
    assert invited.status_code == 201, invited.json
    assert (invited.json["site_id"], invited.json["jurisdiction_id"]) == (str(site.id), str(placentia))
    assert [m["To"] for m in mails(app)] == ["new@site.example"]
    refused = call(
        client,
        boss,
        "POST",
        "/v1/invitations",
        email="y@site.example",
        organisation="site",
        role="clerk",
        site_id=str(other.id),
    )
    assert refused.status_code == 422 and "site_id" in refused.json["errors"]
    not_theirs = call(
        client,
        boss,
        "POST",
        "/v1/invitations",
        email="y@site.example",
        organisation="hauler",
        role="driver",
        hauler_id=str(hauler.id),
    )
    assert not_theirs.status_code == 403

    listed = call(client, boss, "GET", "/v1/memberships").json["items"]
    assert sorted(m["person"]["email"] for m in listed) == ["boss@site.example", "gate@site.example"]
    assert [i["email"] for i in call(client, boss, "GET", "/v1/invitations").json["items"]] == ["new@site.example"]
    withdrawn = call(client, boss, "POST", f"/v1/invitations/{invited.json['id']}/withdrawal")
    assert withdrawn.status_code == 200 and withdrawn.json["withdrawn_at"]
    for foreign in (elsewhere, stranger):
        assert call(client, boss, "POST", f"/v1/memberships/{foreign.id}/removal").status_code == 404
    removed = call(client, boss, "POST", f"/v1/memberships/{gate.id}/removal")
    assert removed.status_code == 200 and removed.json["removed_at"]

    # A clerk manages no one.
    clerk = pf.person_token(
        client,
        session,
        email="c2@site.example",
        organisation="site",
        role="clerk",
        site_id=site.id,
        jurisdiction_id=placentia,
    )
    assert call(client, clerk, "GET", "/v1/memberships").status_code == 403
    assert (
        call(
            client, clerk, "POST", "/v1/invitations", email="z@site.example", organisation="site", role="clerk"
        ).status_code
        == 403
    )
