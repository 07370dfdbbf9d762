"""Tracy Municipal Code ch. 5.26, rule by rule, from the ordinance's own sentences."""

from datetime import date, timedelta

from sqlalchemy import update

from storage.models import Jurisdiction, PermitStatusChange
from tests import factories
from tests.manifest_world import NOW
from tests.ordinance_cases import (
    admin_of,
    at_and_over_a_quarter,
    evening_of_the_permits_last_day,
    findings_of,
    pacific,
    register_device,
    world_in,
)

CITY = "tracy"


def test_no_finding_in_tracy_cites_another_city(client, session, frozen_clock):
    """Every rule behind a Tracy finding is Tracy's own section or exchange policy: Tracy 5.26
    sets no filing deadline, so a late manifest there is late by exchange policy, not by
    Victorville 10.03.170(b)."""
    world = world_in(client, session, frozen_clock, CITY)
    session.add(PermitStatusChange(permit_id=world.permit.id, status="suspended", effective_on=date(2026, 5, 1)))
    session.commit()
    stranger = factories.hauler(session, cities=("victorville",), vehicles=(("TRK-1", 3000),))
    stranger_token = factories.token(client, *factories.oauth_client(session, role="hauler", subject=[stranger.id]))
    elsewhere = factories.disposal_site(session, cities=("victorville",))
    first = world.body(completed=NOW - timedelta(days=200), disposal=None)
    world.post(first)
    bodies = [
        world.body(
            completed=NOW - timedelta(hours=80),
            waste_type="grease_trap_waste",
            full_pump_down=False,
            decant_returned_gallons=100,
            vehicle_id="NOT-OURS",
            measurements={"fog_depth_in": 9, "solids_depth_in": 9, "outlet_clearance_in": 1},
        ),
        world.body(completed=NOW - timedelta(hours=130), disposal=None),
    ]
    shortfall = world.body(completed=NOW - timedelta(hours=30))
    shortfall["disposal"].update(
        site_id=str(elsewhere.id), gallons_delivered=10, delivered_at=(NOW - timedelta(hours=40)).isoformat()
    )
    bodies.append(shortfall)
    found = {}
    for body in bodies:
        found.update(findings_of(world.post(body)))
    # The same service again, by a hauler not registered in Tracy.
    found.update(
        findings_of(world.post(world.body(completed=NOW - timedelta(hours=130), disposal=None), token=stranger_token))
    )
    assert set(found) >= {
        "late_submission",
        "permit_not_active",
        "waste_type_mismatch",
        "partial_pump_down",
        "decant_returned",
        "twenty_five_percent_exceeded",
        "implausible_service",
        "hauler_licence_invalid",
        "vehicle_unregistered",
        "disposal_site_unapproved",
        "disposal_before_service",
        "disposal_unconfirmed",
        "load_shortfall",
        "service_interval_exceeded",
    }, sorted(found)
    for code, finding in found.items():
        assert finding["citation"] == "exchange policy" or finding["citation"].startswith("Tracy 5.26 "), (
            code,
            finding["citation"],
        )
        assert finding["basis"] == ("exchange_policy" if finding["citation"] == "exchange policy" else "ordinance")
    assert found["late_submission"]["citation"] == "exchange policy"
    # The text in hand holds no permit requirement: a suspended permit is flagged by policy.
    assert found["permit_not_active"]["citation"] == "exchange policy"
    assert found["decant_returned"]["citation"] == "Tracy 5.26 prohibitions (f)"
    assert found["disposal_site_unapproved"]["citation"] == "Tracy 5.26 prohibitions (f)"
    # 200 days since the last service of a 90-day interceptor: its frequency, (b).
    assert found["service_interval_exceeded"]["citation"] == "Tracy 5.26 interceptor maintenance (b)"
    assert "outlet_clearance" not in found  # a San Clemente rule: Tracy 5.26 has none


def test_a_device_without_a_frequency_is_serviced_quarterly(client, session, frozen_clock):
    """5.26 interceptor maintenance (e)(3): "Grease interceptors shall be fully pumped out and
    cleaned quarterly when the frequency described in subsection (e)(1) has not been
    established." The device says its frequency is the city's default."""
    world = world_in(client, session, frozen_clock, CITY)
    created = register_device(client, admin_of(client, session, CITY), world)
    assert created.status_code == 201, created.json
    assert (created.json["frequency_days"], created.json["frequency_source"]) == (90, "city_default")
    listed = client.get(
        f"/v1/fses/{world.device.fse_id}/devices/{created.json['id']}",
        headers=factories.bearer(admin_of(client, session, CITY)),
    )
    assert listed.json["frequency_source"] == "city_default"
    # A quarter is three calendar months (`test_quarterly.py`): from 28 February to 28 May.
    world.post(world.body(device_tag="GI-2", completed=NOW - timedelta(days=93, hours=2), disposal=None))
    finding = findings_of(world.post(world.body(device_tag="GI-2", completed=NOW - timedelta(hours=2))))[
        "service_interval_exceeded"
    ]
    assert finding["message"].startswith("93 days since")
    assert (finding["basis"], finding["citation"]) == ("ordinance", "Tracy 5.26 interceptor maintenance (e)(3)")


def test_an_interceptor_at_least_every_six_months(client, session, frozen_clock):
    """5.26 interceptor maintenance (e)(2): "All FSEs with a grease interceptor shall maintain
    their grease interceptor not less than every six (6) months." Any frequency up to it, not
    Victorville's list."""
    world = world_in(client, session, frozen_clock, CITY)
    admin = admin_of(client, session, CITY)
    refused = register_device(client, admin, world, frequency_days=185)
    assert refused.status_code == 422
    assert refused.json["errors"]["frequency_days"] == [
        "An interceptor must be serviced at least every 6 months: no frequency over 184 days "
        "(Tracy 5.26 interceptor maintenance (e)(2))."
    ]
    assert register_device(client, admin, world, frequency_days=45).status_code == 201
    assert register_device(client, admin, world, tag="GI-3", frequency_days=183).status_code == 201
    # A 30-day grace would let a 183-day interceptor run 213 days; six months stop it.
    session.execute(update(Jurisdiction).where(Jurisdiction.code == CITY).values(grace_days=30))
    session.commit()
    world.post(world.body(device_tag="GI-3", completed=NOW - timedelta(days=184, hours=2), disposal=None))
    finding = findings_of(world.post(world.body(device_tag="GI-3", completed=NOW - timedelta(hours=2))))[
        "service_interval_exceeded"
    ]
    assert finding["citation"] == "Tracy 5.26 interceptor maintenance (e)(2)"


def test_a_grace_does_not_stretch_six_months_in_the_lists_either(client, session, frozen_clock):
    """5.26 interceptor maintenance (e)(2): "not less than every six (6) months." A 30-day grace
    (exchange policy) lets a 45-day interceptor run 75 days before it is missed, but a 183-day
    one is missed the day after six months (29 November to 29 May, 181 days), in the auditor's
    lists as in the finding."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 6, 1, 9))
    admin = admin_of(client, session, CITY)
    assert register_device(client, admin, world, tag="GI-3", frequency_days=183).status_code == 201
    assert register_device(client, admin, world, tag="GI-4", frequency_days=45).status_code == 201
    session.execute(update(Jurisdiction).where(Jurisdiction.code == CITY).values(grace_days=30))
    session.commit()
    # The evening of 29 November in Tracy (07:30 UTC on the 30th) is 29 November's service.
    for tag in ("GI-3", "GI-4"):
        filed = world.post(world.body(device_tag=tag, completed=pacific(2025, 11, 29, 23, 30), disposal=None))
        assert filed.status_code == 201, filed.json
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))

    def standing(as_of):
        items = client.get(
            "/v1/audit/missed-services", query_string={"as_of": as_of.isoformat()}, headers=factories.bearer(auditor)
        ).json["items"]
        return {row["device_tag"]: (row["status"], row["days_overdue"], row["grace_days"]) for row in items}

    served = date(2025, 11, 29)
    assert "GI-3" not in standing(date(2026, 5, 29))  # due that day: six months exactly
    assert standing(date(2026, 5, 30))["GI-3"] == ("missed", 1, 0)
    assert standing(served + timedelta(days=75))["GI-4"] == ("overdue", 30, 30)
    assert standing(served + timedelta(days=76))["GI-4"] == ("missed", 31, 30)
    period = client.get(
        "/v1/audit/missed-services",
        query_string={"from": "2026-05-01", "to": "2026-05-30"},
        headers=factories.bearer(auditor),
    ).json["items"]
    gaps = {row["device_tag"]: (row["due_on"], row["missed_on"]) for row in period}
    assert gaps["GI-3"] == ("2026-05-29", "2026-05-30") and "GI-4" in gaps
    record = client.get(
        f"/v1/fses/{world.device.fse_id}/records", query_string={"to": "2026-05-30"}, headers=factories.bearer(auditor)
    ).json
    assert record["summary"]["devices"]["GI-3"] == {"status": "missed", "next_due_on": "2026-05-29", "days_overdue": 1}
    # Serviced on 29 May, six months after: no finding, and no gap in the lists.
    on_time = world.post(world.body(device_tag="GI-3", completed=pacific(2026, 5, 29, 23, 30), disposal=None))
    assert "service_interval_exceeded" not in findings_of(on_time)
    period = client.get(
        "/v1/audit/missed-services",
        query_string={"from": "2026-05-01", "to": "2026-06-01"},
        headers=factories.bearer(auditor),
    ).json["items"]
    assert "GI-3" not in {row["device_tag"] for row in period}


def test_six_months_are_calendar_months(client, session, frozen_clock):
    """5.26 interceptor maintenance (e)(2): "All FSEs with a grease interceptor shall maintain
    their grease interceptor not less than every six (6) months." Six calendar months from 1
    January end on 1 July: a pump-out on 1 January and the next on 3 July is a missed service,
    although only 183 days apart, in the finding and in the auditor's lists."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 7, 3, 18))
    admin = admin_of(client, session, CITY)
    assert register_device(client, admin, world, tag="GI-3", frequency_days=183).status_code == 201
    world.post(world.body(device_tag="GI-3", completed=pacific(2026, 1, 1, 9), disposal=None))
    late = findings_of(world.post(world.body(device_tag="GI-3", completed=pacific(2026, 7, 3, 9))))
    finding = late["service_interval_exceeded"]
    assert finding["citation"] == "Tracy 5.26 interceptor maintenance (e)(2)"
    assert finding["message"] == (
        "183 days since the previous qualifying service; at most 181 allowed "
        "(183-day frequency, 0 grace, 6-month longest interval)."
    )
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    period = client.get(
        "/v1/audit/missed-services",
        query_string={"from": "2026-06-01", "to": "2026-07-03"},
        headers=factories.bearer(auditor),
    ).json["items"]
    gaps = {row["device_tag"]: (row["due_on"], row["missed_on"], row["days_late"]) for row in period}
    assert gaps["GI-3"] == ("2026-07-01", "2026-07-02", 2)


def test_six_months_from_the_last_day_of_a_month_end_on_the_last_day_of_february(client, session, frozen_clock):
    """5.26 interceptor maintenance (e)(2): "not less than every six (6) months." Counted in
    calendar months, a month without the day counts its last day (exchange policy): from 31
    August, due by 28 February; 1 March is late. Up to six months in any season a frequency
    may run (184 days, from 31 July), no longer."""
    world = world_in(client, session, frozen_clock, CITY, now=pacific(2026, 3, 2, 18))
    admin = admin_of(client, session, CITY)
    refused = register_device(client, admin, world, tag="GI-9", frequency_days=185)
    assert refused.status_code == 422
    assert refused.json["errors"]["frequency_days"] == [
        "An interceptor must be serviced at least every 6 months: no frequency over 184 days "
        "(Tracy 5.26 interceptor maintenance (e)(2))."
    ]
    for tag in ("GI-3", "GI-4"):
        assert register_device(client, admin, world, tag=tag, frequency_days=184).status_code == 201
        world.post(world.body(device_tag=tag, completed=pacific(2025, 8, 31, 9), disposal=None))
    on_time = findings_of(world.post(world.body(device_tag="GI-3", completed=pacific(2026, 2, 28, 23, 30))))
    assert "service_interval_exceeded" not in on_time
    late = findings_of(world.post(world.body(device_tag="GI-4", completed=pacific(2026, 3, 1, 0, 30))))
    assert late["service_interval_exceeded"]["message"].startswith(
        "182 days since the previous qualifying service; at most 181 allowed"
    )
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=[CITY]))
    record = client.get(
        f"/v1/fses/{world.device.fse_id}/records", query_string={"to": "2026-02-27"}, headers=factories.bearer(auditor)
    ).json
    assert record["summary"]["devices"]["GI-4"]["next_due_on"] == "2026-02-28"


def test_twenty_five_percent_is_exceeded_only_past_a_quarter(client, session, frozen_clock):
    """5.26 prohibitions (g): "Operation of grease interceptors with FOG and solids accumulation
    exceeding twenty-five (25) percent of the design hydraulic depth of the grease interceptor
    is prohibited.\""""
    at, over = at_and_over_a_quarter(client, session, frozen_clock, CITY)
    assert "twenty_five_percent_exceeded" not in at
    assert over["twenty_five_percent_exceeded"]["citation"] == "Tracy 5.26 prohibitions (g)"


def test_the_evening_of_a_permits_last_day_is_still_that_day(client, session, frozen_clock):
    """A permit valid through June 30 covers 23:30 Pacific that day (exchange policy in Tracy:
    the text in hand states no permit requirement, so the finding says so)."""
    evening, next_day = evening_of_the_permits_last_day(client, session, frozen_clock, CITY)
    assert "permit_not_active" not in evening
    assert (next_day["permit_not_active"]["basis"], next_day["permit_not_active"]["citation"]) == (
        "exchange_policy",
        "exchange policy",
    )


def test_a_full_pump_out_is_tracys_rule_and_the_ninety_percent_the_exchanges(client, session, frozen_clock):
    """5.26 interceptor maintenance (a): "removal of the full content of the interceptor": a
    service the hauler does not attest as a full pump-down breaks it; one attested but short of
    90% of the capacity is short by exchange policy."""
    world = world_in(client, session, frozen_clock, CITY)
    unattested = findings_of(world.post(world.body(full_pump_down=False)))["partial_pump_down"]
    assert unattested["citation"] == "Tracy 5.26 interceptor maintenance (a)"
    short = findings_of(world.post(world.body(gallons_removed=1000)))["partial_pump_down"]
    assert (short["basis"], short["citation"]) == ("exchange_policy", "exchange policy")
