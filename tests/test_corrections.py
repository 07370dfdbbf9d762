"""Corrections that would move a manifest wait for the city's review; small ones apply at once."""

import uuid
from datetime import timedelta

import pytest
from sqlalchemy import select, text

from domain import chain
from storage.corrections import PendingCorrection
from storage.models import Change, ManifestRevision
from tests import factories
from tests import people_factories as pf
from tests.manifest_world import NOW, build, correct, decide, filed, iso, other_device, shifted  # noqa: F401


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


@pytest.fixture
def city(client, session, world):
    """Tokens of Victorville's auditor and admin, and of Tracy's auditor."""
    factories.jurisdiction(session, "tracy")

    def token(role, code, scopes=None):
        return factories.token(client, *factories.oauth_client(session, role=role, subject=[code], scopes=scopes))

    return {
        "auditor": token("auditor", "victorville"),
        "admin": token("admin", "victorville"),
        "tracy": token("auditor", "tracy"),
        "reader": token("auditor", "victorville", scopes=["audit:read", "manifests:read"]),
    }


def review_list(client, token, **query):
    response = client.get("/v1/audit/corrections", query_string=query, headers=factories.bearer(token))
    assert response.status_code == 200, response.json
    return response.json["items"]


# What waits and what does not ---------------------------------------------------------------


def test_a_shift_up_to_the_citys_deadline_is_a_revision_and_past_it_waits(world):
    """Victorville 10.03.170(b): manifests "not later than seventy-two hours after GCDs are
    serviced" (`manifest_deadline_hours`). A correction may move the service that far from what
    the city accepted; further waits for the city (exchange policy)."""
    manifest, body = filed(world, completed=NOW - timedelta(days=10))
    exactly = correct(world, manifest, shifted(body, -72))
    assert exactly.status_code == 201 and exactly.json["revision"] == 2, exactly.json
    # Measured from the filing the city accepted, not from the last correction: a second step
    # of a second past the deadline, in total, waits.
    past = correct(world, manifest, shifted(body, -72 - 1 / 3600))
    assert past.status_code == 202, past.json
    assert past.json["moves"] == ["service_time"] and past.json["status"] == "pending"
    later = correct(world, manifest, shifted(body, 72 + 1 / 3600))
    assert later.status_code == 202 and later.json["moves"] == ["service_time"]


def test_walking_the_service_back_in_small_steps_is_caught(world):
    manifest, body = filed(world, completed=NOW - timedelta(days=10))
    assert correct(world, manifest, shifted(body, -71)).status_code == 201
    second = correct(world, manifest, shifted(body, -142))
    assert second.status_code == 202 and second.json["moves"] == ["service_time"]
    receipt = world.client.get(f"/v1/manifests/{manifest['id']}", headers=factories.bearer(world.hauler_token)).json
    assert receipt["revision"] == 2


def test_a_typo_is_a_revision_at_once(world):
    manifest, body = filed(world)
    response = correct(world, manifest, body, driver_name="Sam Ortiz")
    assert response.status_code == 201 and response.json["revision"] == 2
    assert response.json["manifest"]["driver_name"] == "Sam Ortiz"


def test_moving_to_another_restaurant_waits_and_the_manifest_stays_as_it_was(world, session):
    manifest, body = filed(world)
    device = other_device(world, session)
    response = correct(world, manifest, body, permit_number=device.permit.permit_number)
    assert response.status_code == 202, response.json
    proposal = response.json
    assert response.headers["Location"].endswith(f"/v1/manifests/{manifest['id']}/corrections/{proposal['id']}")
    assert proposal["moves"] == ["fse", "permit", "device"]
    assert proposal["manifest"]["permit_number"] == device.permit.permit_number
    assert proposal["current"]["permit_number"] == world.permit.permit_number
    assert (proposal["based_on_revision"], proposal["revision"], proposal["decided_at"]) == (1, None, None)

    headers = factories.bearer(world.hauler_token)
    receipt = world.client.get(f"/v1/manifests/{manifest['id']}", headers=headers).json
    assert (receipt["revision"], receipt["sha256"], receipt["fse_id"]) == (1, manifest["sha256"], manifest["fse_id"])
    assert [p["id"] for p in receipt["pending_corrections"]] == [proposal["id"]]
    assert len(world.client.get(f"/v1/manifests/{manifest['id']}/revisions", headers=headers).json["items"]) == 1
    assert world.client.get(response.headers["Location"], headers=headers).json == proposal
    # What was sent is kept with its hash.
    session.expire_all()
    row = session.get(PendingCorrection, uuid.UUID(proposal["id"]))
    assert row.sha256 == proposal["sha256"] == chain.seal(row.document)
    assert row.document["manifest"]["permit_number"] == device.permit.permit_number
    assert row.document["reason"] == "correcting" and row.document["based_on_sha256"] == manifest["sha256"]

    again = correct(world, manifest, body, permit_number=device.permit.permit_number)
    assert again.status_code == 202 and again.json["id"] == proposal["id"]


def test_another_device_of_the_same_permit_waits(world, session):
    factories.device(session, permit_row=world.permit, tag="GI-2")
    manifest, body = filed(world)
    response = correct(world, manifest, body, device_tag="GI-2")
    assert response.status_code == 202 and response.json["moves"] == ["device"]


def test_a_correction_cannot_move_a_manifest_to_another_city(world, session):
    tracy_fse = factories.fse(session, city="tracy")
    tracy = factories.device(session, permit_row=factories.permit(session, fse_row=tracy_fse))
    manifest, body = filed(world)
    response = correct(world, manifest, body, permit_number=tracy.permit.permit_number)
    assert response.status_code == 422 and "permit_number" in response.json["errors"], response.json


# The city decides ---------------------------------------------------------------------------


def test_the_citys_auditor_approves_a_move_and_it_becomes_the_next_revision(world, session, city, client):
    manifest, body = filed(world)
    device = other_device(world, session, status="suspended")
    proposal = correct(world, manifest, body, permit_number=device.permit.permit_number).json
    assert [item["id"] for item in review_list(client, city["auditor"])] == [proposal["id"]]
    assert review_list(client, city["tracy"]) == []

    approved = decide(client, city["auditor"], proposal["id"], "approve", reason="Ticket shows the other address")
    assert approved.status_code == 200, approved.json
    assert (approved.json["status"], approved.json["revision"]) == ("approved", 2)
    assert approved.json["decision_reason"] == "Ticket shows the other address"

    headers = factories.bearer(world.hauler_token)
    receipt = client.get(f"/v1/manifests/{manifest['id']}", headers=headers).json
    assert receipt["revision"] == 2 and receipt["pending_corrections"] == []
    assert receipt["fse_id"] == str(device.fse_id) and receipt["device_id"] == str(device.id)
    revisions = client.get(f"/v1/manifests/{manifest['id']}/revisions", headers=headers).json["items"]
    assert revisions[1]["previous_sha256"] == manifest["sha256"]
    assert revisions[1]["reason"] == "correcting"
    # Received when the hauler sent it, chained as any correction.
    assert revisions[1]["received_at"] == proposal["submitted_at"]
    assert chain.verify([(r["revision"], r["document"], r["sha256"]) for r in revisions]) == []
    # Judged again, against the permit it now names.
    assert manifest["findings"] == []
    assert [f["code"] for f in receipt["findings"]] == ["permit_not_active"]
    assert [item["id"] for item in review_list(client, city["auditor"], status="approved")] == [proposal["id"]]
    again = decide(client, city["auditor"], proposal["id"], "approve")
    assert again.status_code == 409
    session.expire_all()
    told = session.execute(
        select(Change.kind, Change.revision).where(Change.manifest_id == uuid.UUID(manifest["id"])).order_by(Change.seq)
    ).all()
    assert told[-1] == ("manifest.corrected", 2)


def test_the_citys_admin_rejects_with_a_reason_the_hauler_reads(world, session, city, client):
    manifest, body = filed(world, completed=NOW - timedelta(days=10))
    proposal = correct(world, manifest, shifted(body, -24 * 400)).json
    no_reason = decide(client, city["admin"], proposal["id"], "reject")
    assert no_reason.status_code == 422 and "reason" in no_reason.json["errors"]
    rejected = decide(client, city["admin"], proposal["id"], "reject", reason="No service that year")
    assert rejected.status_code == 200, rejected.json
    assert (rejected.json["status"], rejected.json["decision_reason"], rejected.json["revision"]) == (
        "rejected",
        "No service that year",
        None,
    )
    headers = factories.bearer(world.hauler_token)
    seen = client.get(f"/v1/manifests/{manifest['id']}/corrections/{proposal['id']}", headers=headers).json
    assert (seen["status"], seen["decision_reason"]) == ("rejected", "No service that year")
    receipt = client.get(f"/v1/manifests/{manifest['id']}", headers=headers).json
    assert receipt["revision"] == 1 and receipt["pending_corrections"] == []
    assert decide(client, city["auditor"], proposal["id"], "approve").status_code == 409
    assert review_list(client, city["auditor"]) == []


def test_only_the_citys_reviewers_decide(world, session, city, client):
    manifest, body = filed(world, completed=NOW - timedelta(days=10))
    proposal = correct(world, manifest, shifted(body, -24 * 30)).json
    fse = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))
    for token, status in ((city["tracy"], 404), (world.hauler_token, 403), (fse, 403), (city["reader"], 403)):
        for verb in ("approve", "reject"):
            response = decide(client, token, proposal["id"], verb, reason="x")
            assert response.status_code == status, (verb, response.json)
    # An auditor of another city is told what a correction that does not exist would tell.
    missing = decide(client, city["tracy"], "01a2407c-0000-0000-0000-000000000000", "approve")
    assert decide(client, city["tracy"], proposal["id"], "approve").json["detail"] == missing.json["detail"]
    assert (
        client.get(
            f"/v1/manifests/{manifest['id']}/corrections/{proposal['id']}", headers=factories.bearer(city["tracy"])
        ).status_code
        == 404
    )
    # Reading the list takes audit:read; deciding takes corrections:review.
    assert [item["id"] for item in review_list(client, city["reader"])] == [proposal["id"]]
    session.expire_all()
    assert session.scalar(select(PendingCorrection.status)) == "pending"
    assert session.scalar(select(ManifestRevision.revision).order_by(ManifestRevision.revision.desc())) == 1


def test_nobody_decides_a_correction_they_submitted_through_another_membership(world, session, city, client):
    """Exchange policy: nobody approves what they submitted. Dana dispatches for the hauler and
    audits for the city; the correction Dana sent as dispatcher waits for someone else."""
    victorville = world.permit.fse.jurisdiction_id
    dispatcher = pf.person(
        session, email="dana@h.example", organisation="hauler", role="dispatcher", hauler_id=world.hauler.id
    )
    auditor = pf.person(
        session, email="dana@h.example", organisation="city", role="auditor", jurisdiction_id=victorville
    )
    portal, _ = pf.app(session)
    as_dispatcher = pf.sign_in(
        client, portal, email="dana@h.example", scope="manifests:write manifests:read", membership=dispatcher.id
    )["access_token"]
    as_auditor = pf.sign_in(
        client, portal, email="dana@h.example", scope="audit:read corrections:review", membership=auditor.id
    )["access_token"]
    manifest, body = filed(world, completed=NOW - timedelta(days=10))
    proposal = correct(world, manifest, shifted(body, -24 * 30), token=as_dispatcher)
    assert proposal.status_code == 202, proposal.json
    assert [item["id"] for item in review_list(client, as_auditor)] == [proposal.json["id"]]
    for verb in ("approve", "reject"):
        refused = decide(client, as_auditor, proposal.json["id"], verb, reason="Looks right to me")
        assert refused.status_code == 403, (verb, refused.json)
        assert refused.headers["Content-Type"] == "application/problem+json"
        assert "submitted" in refused.json["detail"]
    session.expire_all()
    assert session.scalar(select(PendingCorrection.status)) == "pending"
    # Another of the city's reviewers decides it.
    assert decide(client, city["auditor"], proposal.json["id"], "approve").status_code == 200


def test_a_correction_made_stale_by_a_later_one_cannot_be_approved(world, city, client):
    manifest, body = filed(world, completed=NOW - timedelta(days=10))
    proposal = correct(world, manifest, shifted(body, -24 * 30)).json
    assert correct(world, manifest, body, driver_name="Sam Ortiz").status_code == 201
    stale = decide(client, city["auditor"], proposal["id"], "approve")
    assert stale.status_code == 409 and "changed since" in stale.json["detail"]


def test_an_approved_shift_is_the_base_of_the_next_small_correction(world, city, client):
    manifest, body = filed(world, completed=NOW - timedelta(days=40))
    moved = shifted(body, 24 * 30)
    proposal = correct(world, manifest, moved).json
    assert decide(client, city["auditor"], proposal["id"], "approve").status_code == 200
    typo = correct(world, manifest, moved, driver_name="Sam Ortiz")
    assert typo.status_code == 201 and typo.json["revision"] == 3


def test_a_tampered_proposal_cannot_be_approved(world, city, client, session):
    manifest, body = filed(world, completed=NOW - timedelta(days=10))
    proposal = correct(world, manifest, shifted(body, -24 * 30)).json
    session.execute(text("UPDATE pending_corrections SET sha256 = :other"), {"other": "0" * 64})
    session.commit()
    refused = decide(client, city["auditor"], proposal["id"], "approve")
    assert refused.status_code == 409 and "hash" in refused.json["detail"]


def test_reviewers_of_existing_clients_are_given_the_scope(app, client, session):
    """Migration 0015: auditors and admins who read the audit lists may review corrections."""
    factories.jurisdiction(session, "victorville")
    auditor = factories.oauth_client(session, role="auditor", subject=["victorville"])
    reader = factories.oauth_client(session, role="auditor", subject=["victorville"], scopes=["records:read"])
    session.execute(text("UPDATE oauth_clients SET scope = REPLACE(scope, ' corrections:review', '')"))
    session.commit()
    factories.migrated_again(app, session, down_to="0012")
    scopes = dict(session.execute(text("SELECT client_id, scope FROM oauth_clients")).all())
    assert scopes[auditor[0]] == "audit:read records:read manifests:read corrections:review"
    assert scopes[reader[0]] == "records:read"
    assert factories.token(client, *auditor, scope="corrections:review")


def test_the_review_list_pages_and_refuses_an_unknown_status(world, city, client):
    ids = []
    for _ in range(3):
        manifest, body = filed(world, completed=NOW - timedelta(days=10))
        ids.append(correct(world, manifest, shifted(body, -24 * 30)).json["id"])
    headers = factories.bearer(city["auditor"])
    first = client.get("/v1/audit/corrections", query_string={"limit": 2}, headers=headers).json
    second = client.get(
        "/v1/audit/corrections", query_string={"limit": 2, "cursor": first["next_cursor"]}, headers=headers
    ).json
    assert [item["id"] for item in first["items"] + second["items"]] == ids
    assert second["next_cursor"] is None
    refused = client.get("/v1/audit/corrections", query_string={"status": "maybe"}, headers=headers)
    assert refused.status_code == 422 and "status" in refused.json["errors"]


# The hauler follows its corrections ---------------------------------------------------------


def test_the_hauler_lists_the_corrections_it_sent_with_the_citys_decisions(world, session, city, client):
    first, first_body = filed(world, completed=NOW - timedelta(days=10))
    second, second_body = filed(world, completed=NOW - timedelta(days=20))
    waiting = correct(world, first, shifted(first_body, -24 * 30)).json
    refused = correct(world, second, shifted(second_body, -24 * 30)).json
    assert decide(client, city["auditor"], refused["id"], "reject", reason="No such service").status_code == 200
    headers = factories.bearer(world.hauler_token)

    def sent(**query):
        response = client.get("/v1/corrections", query_string=query, headers=headers)
        assert response.status_code == 200, response.json
        return response.json

    # Newest first, whatever their status, each with the city's decision once there is one.
    every = sent()["items"]
    assert [(r["id"], r["status"]) for r in every] == [(refused["id"], "rejected"), (waiting["id"], "pending")]
    assert every[0]["decision_reason"] == "No such service" and every[0]["manifest_number"] == second["manifest_number"]
    assert [r["id"] for r in sent(status="pending")["items"]] == [waiting["id"]]
    page = sent(limit=1)
    assert [r["id"] for r in page["items"]] == [refused["id"]] and page["next_cursor"]
    assert [r["id"] for r in sent(limit=1, cursor=page["next_cursor"])["items"]] == [waiting["id"]]
    # Another hauler sees none of them; a city's auditor is not a hauler.
    other = factories.token(
        client, *factories.oauth_client(session, role="hauler", subject=[factories.hauler(session, name="Other").id])
    )
    assert client.get("/v1/corrections", headers=factories.bearer(other)).json["items"] == []
    assert client.get("/v1/corrections", headers=factories.bearer(city["auditor"])).status_code == 403
    refused_status = client.get("/v1/corrections", query_string={"status": "maybe"}, headers=headers)
    assert refused_status.status_code == 422 and refused_status.mimetype == "application/problem+json"
