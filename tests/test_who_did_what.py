"""Who did what: a receipt, a correction and its review, a scan and each change of the registry
name the person behind them (or the program's client), and the city reads its registry's
changes with who and when, in its local time."""

import csv
import hashlib
import io
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import select

from storage.models import ManifestRevision
from tests import factories
from tests import people_factories as pf
from tests.manifest_world import NOW, build, correct, decide, filed, other_device
from tests.receipts_world import receipt
from tests.registry_calls import FSE


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW - timedelta(days=1))
    built = build(client, session)
    frozen_clock(NOW)
    built.reauthenticate()
    return built


def person(client, session, email, organisation, role, **subject):
    return pf.person_token(client, session, email=email, organisation=organisation, role=role, **subject)


def test_a_persons_registry_changes_are_listed_with_who_and_when_in_local_time(world, client, session):
    city = factories.jurisdiction(session)
    admin = person(client, session, "casey@v.example", "city", "admin", jurisdiction_id=city.id)
    program = factories.token(client, *factories.oauth_client(session, role="admin", subject=["victorville"]))
    made = client.post("/v1/fses", json=FSE, headers=factories.bearer(admin))
    assert made.status_code == 201, made.json
    assert (
        client.patch(
            f"/v1/fses/{made.json['id']}", json={"operator_name": "Bo Li"}, headers=factories.bearer(program)
        ).status_code
        == 200
    )
    auditor = person(client, session, "avery@v.example", "city", "auditor", jurisdiction_id=city.id)
    listed = client.get("/v1/jurisdictions/victorville/registry-changes", headers=factories.bearer(auditor))
    assert listed.status_code == 200, listed.json
    first, second = listed.json["items"]
    assert (first["action"], first["subject_id"], first["by_person_name"], first["by_client_id"]) == (
        "fse.created",
        made.json["id"],
        "Pat Doe",
        None,
    )
    assert "name" in first["detail"]["fields"] and first["by_role"] == "admin"
    assert (second["action"], second["by_person_id"], second["detail"]) == (
        "fse.updated",
        None,
        {"fields": ["operator_name"]},
    )
    assert second["by_client_id"].startswith("admin-")
    # Victorville's wall clock in June: Pacific daylight time.
    assert first["at"].endswith("-07:00") and first["at"][:16] == (NOW - timedelta(hours=7)).strftime("%Y-%m-%dT%H:%M")
    paged = client.get("/v1/jurisdictions/victorville/registry-changes?limit=1", headers=factories.bearer(auditor)).json
    assert [i["id"] for i in paged["items"]] == [first["id"]] and paged["next_cursor"]
    rest = client.get(
        f"/v1/jurisdictions/victorville/registry-changes?limit=1&cursor={paged['next_cursor']}",
        headers=factories.bearer(auditor),
    ).json
    assert [i["id"] for i in rest["items"]] == [second["id"]] and rest["next_cursor"] is None
    sheet = client.get("/v1/jurisdictions/victorville/registry-changes?format=csv", headers=factories.bearer(auditor))
    assert sheet.status_code == 200 and sheet.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(sheet.get_data(as_text=True))))
    assert [(r["action"], r["by_person_name"]) for r in rows] == [("fse.created", "Pat Doe"), ("fse.updated", "")]
    # What was done in words beside its code, in the sheet as in the list.
    assert [(r["action"], r["action_words"]) for r in rows] == [
        ("fse.created", "Restaurant added"),
        ("fse.updated", "Restaurant changed"),
    ]
    assert [i["action_words"] for i in listed.json["items"]] == ["Restaurant added", "Restaurant changed"]
    header = next(csv.reader(io.StringIO(sheet.get_data(as_text=True))))
    assert header[header.index("action") + 1] == "action_words"
    assert rows[0]["at"] == (NOW - timedelta(hours=7)).strftime("%Y-%m-%d %H:%M") + " -07:00"


def test_registry_changes_are_the_citys_own_auditors_and_admins_only(world, client, session):
    factories.jurisdiction(session, "tracy")
    tracy = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["tracy"]))
    hauler = person(client, session, "sam@h.example", "hauler", "dispatcher", hauler_id=world.hauler.id)
    for token, status in ((tracy, 404), (hauler, 403)):
        answer = client.get("/v1/jurisdictions/victorville/registry-changes", headers=factories.bearer(token))
        assert answer.status_code == status, answer.json
        assert answer.mimetype == "application/problem+json"
    bad = client.get("/v1/jurisdictions/tracy/registry-changes?format=xml", headers=factories.bearer(tracy))
    assert bad.status_code == 422


def test_a_clerks_receipt_names_the_clerk(world, client, session):
    clerk = person(client, session, "gate@s.example", "site", "clerk", site_id=world.site.id)
    licence = world.hauler.licences[0].licence_number
    made = client.post("/v1/receipts", json=receipt("T-77", licence), headers=factories.bearer(clerk))
    assert made.status_code == 201, made.json
    assert made.json["submitted_by"] == {
        "client_id": None,
        "role": "site",
        "person_id": made.json["submitted_by"]["person_id"],
        "person_name": "Pat Doe",
    }
    program = factories.token(client, *factories.oauth_client(session, role="site", subject=[world.site.id]))
    other = client.post("/v1/receipts", json=receipt("T-78", licence), headers=factories.bearer(program)).json
    assert other["submitted_by"]["person_id"] is None and other["submitted_by"]["client_id"].startswith("site-")


def test_a_drivers_scan_and_a_dispatchers_correction_name_them_and_the_reviewer(world, client, session):
    city = factories.jurisdiction(session)
    driver = person(client, session, "dee@h.example", "hauler", "driver", hauler_id=world.hauler.id)
    manifest, body = filed(world)
    scan = factories.pdf_bytes()
    key = hashlib.sha256(scan).hexdigest()
    put = client.put(
        f"/v1/manifests/{manifest['id']}/documents/{key}",
        data=scan,
        headers={**factories.bearer(driver), "Content-Type": "application/pdf"},
    )
    assert put.status_code == 201, put.json
    assert put.json["uploaded_by"]["person_name"] == "Pat Doe" and put.json["uploaded_by"]["role"] == "hauler"
    shown = client.get(f"/v1/manifests/{manifest['id']}", headers=factories.bearer(world.hauler_token)).json
    assert [d["uploaded_by"]["person_name"] for d in shown["documents"]] == ["Pat Doe"]
    # A scan the dispatch program sends names the program, in its answer as when read again.
    other_scan = factories.pdf_bytes("second")
    sent = client.put(
        f"/v1/manifests/{manifest['id']}/documents/{hashlib.sha256(other_scan).hexdigest()}",
        data=other_scan,
        headers={**factories.bearer(world.hauler_token), "Content-Type": "application/pdf"},
    )
    assert sent.status_code == 201, sent.json
    shown = client.get(f"/v1/manifests/{manifest['id']}", headers=factories.bearer(world.hauler_token)).json
    [read] = [d for d in shown["documents"] if d["id"] == sent.json["id"]]
    assert sent.json["uploaded_by"] == read["uploaded_by"] and read["uploaded_by"]["role"] == "hauler"
    assert read["uploaded_by"]["client_id"] and read["uploaded_by"]["person_id"] is None

    device = other_device(world, session)
    proposal = correct(world, manifest, body, token=driver, permit_number=device.permit.permit_number)
    assert proposal.status_code == 202, proposal.json
    assert proposal.json["submitted_by"]["person_name"] == "Pat Doe" and proposal.json["decided_by"] is None
    pf.person(
        session,
        email="avery@v.example",
        name="Avery Audit",
        organisation="city",
        role="auditor",
        jurisdiction_id=city.id,
    )
    auditor = pf.sign_in(client, "test-portal", email="avery@v.example", scope="corrections:review")["access_token"]
    approved = decide(client, auditor, proposal.json["id"], "approve", reason="Ticket shows it")
    assert approved.status_code == 200, approved.json
    assert approved.json["decided_by"]["person_name"] == "Avery Audit"
    assert approved.json["submitted_by"]["person_name"] == "Pat Doe"
    # The revision the approval made carries the driver's certification of its hash.
    revision = session.scalars(
        select(ManifestRevision)
        .where(ManifestRevision.manifest_id == uuid.UUID(manifest["id"]))
        .order_by(ManifestRevision.revision.desc())
    ).first()
    assert revision.revision == 2 and revision.certification["name"] == "Pat Doe"
    assert revision.certification["sha256"] == revision.sha256


def test_a_csv_import_is_one_registry_change_with_its_counts(world, client, session):
    from api.config import ROOT
    from tests.registry_calls import upload

    city = factories.jurisdiction(session)
    admin = person(client, session, "casey@v.example", "city", "admin", jurisdiction_id=city.id)
    imported = upload(client, admin, "fses", (ROOT / "samples" / "fses.csv").read_bytes())
    assert imported.status_code == 200, imported.json
    [change] = client.get("/v1/jurisdictions/victorville/registry-changes", headers=factories.bearer(admin)).json[
        "items"
    ]
    assert change["action"] == "import.fses" and change["subject_id"] is None
    assert change["by_person_name"] == "Pat Doe"
    assert change["detail"] == {
        name: imported.json[name] for name in ("rows", "created", "updated", "unchanged", "rejected")
    }
