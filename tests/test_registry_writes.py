"""A permit's status changes like a frequency: from the city's today on, never before the
permit's issue date or its last change, with why, the notice given and who recorded it; the
registry's changes say what each change was; the CSV import dates a status change and refuses
to rewrite a permit's term."""

from datetime import date

from domain import clock
from tests import factories
from tests import people_factories as pf
from tests.ordinance_cases import admin_of, change, move, pacific, renewed, world_in
from tests.registry_calls import imported

CITY = "victorville"


def patch(client, token, permit_id, **body):
    return client.patch(f"/v1/permits/{permit_id}", json=body, headers=factories.bearer(token))


def history(client, token, permit_id):
    return client.get(f"/v1/permits/{permit_id}", headers=factories.bearer(token)).json["status_history"]


def test_a_status_change_never_reaches_back_before_the_citys_today(client, session, frozen_clock):
    """Exchange policy, as for a frequency: "the past never changes when the present does". On
    1 June a suspension from 1 March (no reason) is refused, naming the fields, and the permit
    stays active on 2 March; 31 May (a day before today) is refused, today is taken. At 23:30
    Pacific on 1 June (06:30 UTC on 2 June) the city's today is still 1 June."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    permit = str(world.permit.id)
    rewritten = patch(client, admin, permit, status="suspended", effective_on="2026-03-01")
    assert rewritten.status_code == 422, rewritten.json
    assert rewritten.json["errors"] == {
        "effective_on": ["A status changes from today (2026-06-01) on; the days before stay as they were judged."],
        "reason": ["Say why: a suspension, revocation or reinstatement is recorded with its reason."],
    }
    assert "2026-03-01" not in str(history(client, admin, permit))
    day_before = patch(client, admin, permit, status="suspended", effective_on="2026-05-31", reason="Spill.")
    assert day_before.status_code == 422 and list(day_before.json["errors"]) == ["effective_on"]
    frozen_clock(pacific(2026, 6, 1, 23, 30))
    admin = admin_of(client, session, CITY)
    today = patch(client, admin, permit, status="suspended", effective_on="2026-06-01", reason="Spill.")
    assert today.status_code == 200, today.json
    assert (today.json["status"], today.json["status_as_of"]) == ("suspended", "2026-06-01")
    march = client.get(f"/v1/permits/{permit}", query_string={"as_of": "2026-03-02"}, headers=factories.bearer(admin))
    assert march.json["status"] == "active"


def test_a_status_change_is_not_before_the_issue_date_nor_the_last_change(client, session, frozen_clock):
    """Exchange policy: a permit issued on 1 July has no status before it (30 June refused, 1
    July taken); a reinstatement scheduled before the suspension it ends is refused (the day
    before refused, the same day taken), and says why."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    world.permit.issued_on, world.permit.expires_on = date(2026, 7, 1), date(2027, 6, 30)
    world.permit.status_changes[0].effective_on = date(2026, 7, 1)
    session.commit()
    permit = str(world.permit.id)
    early = patch(client, admin, permit, status="suspended", effective_on="2026-06-30", reason="Spill.")
    assert early.json["errors"] == {"effective_on": ["Must be on or after the permit's issue date, 2026-07-01."]}
    assert (
        patch(client, admin, permit, status="suspended", effective_on="2026-07-01", reason="Spill.").status_code == 200
    )
    assert (
        patch(client, admin, permit, status="suspended", effective_on="2026-07-20", reason="Again.").status_code == 200
    )
    before = patch(client, admin, permit, status="active", effective_on="2026-07-19", reason="Hearing.")
    assert before.json["errors"] == {
        "effective_on": ["Must be on or after the permit's last status change, on 2026-07-20."]
    }
    unexplained = patch(client, admin, permit, status="active", effective_on="2026-07-20")
    assert list(unexplained.json["errors"]) == ["reason"]
    assert (
        patch(client, admin, permit, status="active", effective_on="2026-07-20", reason="Hearing.").status_code == 200
    )
    # Expiry needs no reason: the permit's term says it.
    assert patch(client, admin, permit, status="expired", effective_on="2026-08-01").status_code == 200


def test_a_status_change_keeps_the_notice_given_and_who_recorded_it(client, session, frozen_clock):
    """Victorville 10.03.320(b)(1): "The building official shall give written notice of the
    proposed revocation or suspension by certified mail to the permittee". The day the notice
    was given is kept with the change (no notice period is set for it: the hearing decides);
    a notice after today, or after the change, is refused. The history and the registry's
    changes name the person who recorded it, and say what the change was."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    city = factories.jurisdiction(session)
    person = pf.person_token(
        client, session, email="casey@v.example", organisation="city", role="admin", jurisdiction_id=city.id
    )
    permit = str(world.permit.id)
    body = {"status": "suspended", "effective_on": "2026-06-20", "reason": "Hearing officer's order."}
    late_notice = patch(client, person, permit, **body, notice_on="2026-06-02")
    assert late_notice.status_code == 422 and list(late_notice.json["errors"]) == ["notice_on"]
    changed = patch(client, person, permit, **body, notice_on="2026-05-15")
    assert changed.status_code == 200, changed.json
    entry = changed.json["status_history"][-1]
    assert {
        k: entry[k] for k in ("status", "effective_on", "reason", "notice_on", "by_person_name", "by_client_id")
    } == {
        **body,
        "notice_on": "2026-05-15",
        "by_person_name": "Pat Doe",
        "by_client_id": None,
    }
    assert entry["by_person_id"] and entry["by_command"] is None
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    changes = client.get("/v1/jurisdictions/victorville/registry-changes", headers=factories.bearer(auditor)).json
    [noted] = [row for row in changes["items"] if row["action"] == "permit.status_changed"]
    assert noted["by_person_name"] == "Pat Doe"
    assert {k: noted["detail"][k] for k in ("status", "effective_on", "reason", "notice_on")} == {
        **body,
        "notice_on": "2026-05-15",
    }


def test_the_registry_changes_say_what_a_frequency_change_and_a_move_were(client, session, frozen_clock):
    """Victorville 10.03.080(a): "The FOG permit shall be issued for a one-year period and shall
    be renewed annually." A renewal's move and a new frequency are noted with their values:
    from and to which permit, from and to which frequency, from when and why."""
    world, admin, new = renewed(client, session, frozen_clock)
    assert move(client, admin, world, "GI-1", permit_number=new["permit_number"], reason="Renewal.").status_code == 201
    refreq = change(
        client,
        admin,
        world,
        str(world.device.id),
        frequency_days=30,
        effective_on="2026-07-20",
        reason="Grease builds up fast.",
    )
    assert refreq.status_code == 201, refreq.json
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    items = client.get("/v1/jurisdictions/victorville/registry-changes", headers=factories.bearer(auditor)).json[
        "items"
    ]
    detail = {row["action"]: row["detail"] for row in items}
    assert {k: detail["device.permit_moved"][k] for k in ("from_permit", "to_permit", "effective_on", "reason")} == {
        "from_permit": world.permit.permit_number,
        "to_permit": new["permit_number"],
        "effective_on": "2026-07-01",
        "reason": "Renewal.",
    }
    assert {k: detail["device.frequency_changed"][k] for k in ("from_days", "to_days", "effective_on", "reason")} == {
        "from_days": 90,
        "to_days": 30,
        "effective_on": "2026-07-20",
        "reason": "Grease builds up fast.",
    }
    device = client.get(f"/v1/fses/{world.device.fse_id}/devices/{world.device.id}", headers=factories.bearer(admin))
    assert device.json["permit_moves"][0]["by_role"] == "admin"
    assert device.json["frequency_changes"][0]["by_role"] == "admin"


def test_the_evening_in_california_is_still_the_permits_last_day(client, session, frozen_clock):
    """Every date a rule judges is the city's local date. At 20:00 Pacific on 30 June (03:00
    UTC on 1 July), a permit valid through 30 June is active, listed among the active permits;
    a hauler's licence through 30 June is valid and a site approved until 30 June approved.
    At 00:30 Pacific on 1 July all three have lapsed."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 30, 20))
    world.permit.issued_on, world.permit.expires_on = date(2025, 7, 1), date(2026, 6, 30)
    for licence in world.hauler.licences:
        licence.expires_on = date(2026, 6, 30)
    for approval in world.site.approvals:
        approval.approved_until = date(2026, 6, 30)
    session.commit()

    def seen():
        admin = factories.bearer(admin_of(client, session, CITY))
        permit = client.get(f"/v1/permits/{world.permit.id}", headers=admin).json
        active = client.get("/v1/permits", query_string={"status": "active"}, headers=admin).json["items"]
        hauler = client.get(f"/v1/haulers/{world.hauler.id}", headers=admin).json
        site = client.get(f"/v1/disposal-sites/{world.site.id}", headers=admin).json
        approved = client.get("/v1/disposal-sites", query_string={"status": "approved"}, headers=admin).json["items"]
        return (
            permit["status"],
            permit["status_as_of"],
            [p["id"] for p in active],
            (hauler["licence_valid"], hauler["status_as_of"]),
            (site["status"], site["status_as_of"], [s["id"] for s in approved]),
        )

    assert clock.now() == pacific(2026, 6, 30, 20) and clock.now().day == 1  # 1 July in UTC
    assert seen() == (
        "active",
        "2026-06-30",
        [str(world.permit.id)],
        (True, "2026-06-30"),
        ("approved", "2026-06-30", [str(world.site.id)]),
    )
    frozen_clock(pacific(2026, 7, 1, 0, 30))
    permit_status, as_of, active, hauler, site = seen()
    assert (permit_status, as_of, active) == ("expired", "2026-07-01", [])
    assert hauler == (False, "2026-07-01") and site == ("not_approved", "2026-07-01", [])


PERMITS = "permit_number,fse_apn,fse_name,kind,status,issued_on,expires_on"


def test_the_import_dates_a_status_change_as_the_api_does(client, session, frozen_clock):
    """Exchange policy, through the CSV import as through the API: a row's new status holds
    from its `effective_on` (default the city's today: at 23:30 Pacific on 1 June, 1 June),
    says why, and never reaches before today."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 23, 30))
    admin = admin_of(client, session, CITY)
    fse, permit = world.device.fse, world.permit
    row = f"{permit.permit_number},{fse.apn},{fse.name},regular,suspended,2025-01-01,2027-12-31"
    dated = f"{PERMITS},effective_on,reason\n{row},{{}},{{}}\n"
    past = imported(client, admin, "permits", dated.format("2026-03-01", "Spill."))
    assert past["rejected"] == 1 and list(past["rejections"][0]["errors"]) == ["effective_on"]
    unexplained = imported(client, admin, "permits", dated.format("2026-06-10", ""))
    assert unexplained["rejected"] == 1 and list(unexplained["rejections"][0]["errors"]) == ["reason"]
    assert imported(client, admin, "permits", dated.format("2026-06-10", "Spill."))["updated"] == 1
    assert imported(client, admin, "permits", dated.format("2026-06-10", "Spill."))["unchanged"] == 1
    undated = imported(client, admin, "permits", f"{PERMITS},reason\n{row.replace('suspended', 'revoked')},Closed.\n")
    assert undated["rejected"] == 1  # today (1 June) is before the last change, on 10 June
    entries = history(client, admin, str(permit.id))
    assert [(e["status"], e["effective_on"], e["reason"], e["by_role"]) for e in entries[1:]] == [
        ("suspended", "2026-06-10", "Spill.", "admin")
    ]


def test_a_renewal_through_the_import_is_a_new_permit(client, session, frozen_clock):
    """Placentia 16.24 (f): "FOG Wastewater Discharge Permits shall be issued annually."
    Victorville 10.03.080(a): "The FOG permit shall be issued for a one-year period and shall be
    renewed annually." A row giving a known permit new issue or expiry dates would rewrite the
    term the past was judged by: it is refused on its own (the other rows go in), the term
    stays, and a new permit number is registered."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    fse, permit = world.device.fse, world.permit
    permit.issued_on, permit.expires_on = date(2025, 7, 1), date(2026, 6, 30)
    session.commit()
    rows = (
        f"{PERMITS}\n{permit.permit_number},{fse.apn},{fse.name},regular,active,2025-07-01,2027-06-30\n"
        f"{permit.permit_number}-2026,{fse.apn},{fse.name},regular,active,2026-07-01,2027-06-30\n"
    )
    report = imported(client, admin, "permits", rows)
    assert (report["rejected"], report["created"]) == (1, 1)
    [rejection] = report["rejections"]
    assert rejection["reason"] == "A renewal is a new permit: register it and move the devices"
    assert rejection["errors"] == {"expires_on": ["The permit's is 2026-06-30; a term does not change."]}
    kept = client.get(f"/v1/permits/{permit.id}", headers=factories.bearer(admin)).json
    assert (kept["issued_on"], kept["expires_on"]) == ("2025-07-01", "2026-06-30")


def test_the_command_line_import_records_itself_as_who(app, client, session, frozen_clock, tmp_path):
    """Who made each dated change: through `flask import`, the command (no caller is there)."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    fse, permit = world.device.fse, world.permit
    path = tmp_path / "permits.csv"
    path.write_text(
        f"{PERMITS},effective_on,reason,notice_on\n"
        f"{permit.permit_number},{fse.apn},{fse.name},regular,suspended,2025-01-01,2027-12-31,2026-06-15,Spill.,"
        "2026-05-20\n"
    )
    result = app.test_cli_runner().invoke(args=["import", "permits", str(path), "--jurisdiction", CITY])
    assert result.exit_code == 0 and "1 updated" in result.output, result.output
    entry = history(client, admin_of(client, session, CITY), str(permit.id))[-1]
    assert {k: entry[k] for k in ("status", "effective_on", "reason", "notice_on", "by_command", "by_client_id")} == {
        "status": "suspended",
        "effective_on": "2026-06-15",
        "reason": "Spill.",
        "notice_on": "2026-05-20",
        "by_command": "flask import permits",
        "by_client_id": None,
    }
