"""Service frequencies from the measured accumulation rate: the rule, and the auditor's list."""

import csv
import io
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from domain.frequency import Accumulation, citation, recommend
from tests import factories
from tests.manifest_world import iso
from tests.spec import load_spec, schema_errors

ALLOWED = [30, 60, 90, 120, 180]
START = date(2025, 6, 1)
AS_OF = date(2026, 6, 1)


def advice(inches, days, *, current=90, allowed=ALLOWED, max_interval=None):
    return recommend(
        Accumulation(intervals=4, inches=inches, days=days),
        liquid_depth_in=48,
        limit_share=0.25,
        current_days=current,
        allowed=allowed,
        max_interval_days=max_interval,
    )


def test_the_longest_allowed_frequency_within_the_25_percent_rule():
    # 14 in every 90 days: 12 in (a quarter of 48) is reached on day 77.
    fast = advice(56, 360)
    assert (fast.frequency_days, fast.change) == (60, "shorten")
    measured = Accumulation(intervals=4, inches=56, days=360)
    assert measured.days_to(0.25, 48) == 77
    assert measured.share_after(90, 48) == pytest.approx(0.292, abs=0.001)
    assert advice(40, 360).change == "keep"  # 10 in a quarter: day 108
    assert (advice(14.4, 360).frequency_days, advice(14.4, 360).change) == (180, "lengthen")


def test_no_longer_than_the_citys_longest_interval_nor_shorter_than_its_shortest_frequency():
    assert advice(0, 360, max_interval=183).frequency_days == 180
    assert Accumulation(intervals=4, inches=0, days=360).days_to(0.25, 48) is None
    assert advice(1, 360, allowed=[30, 60, 90, 120, 180, 365], max_interval=365).frequency_days == 365
    assert advice(1, 360, allowed=[30, 60, 90, 120, 180, 365], max_interval=183).frequency_days == 180
    assert advice(1, 360, allowed=[90, 120], max_interval=60).frequency_days == 60
    # A city that lists no frequencies (every city but Victorville) assigns any number of days:
    # the days to the limit, no longer than its longest interval, nor than a year.
    assert advice(56, 360, allowed=[]).frequency_days == 77
    assert advice(56, 360, allowed=[], max_interval=60).frequency_days == 60
    assert advice(0, 360, allowed=[], max_interval=183).frequency_days == 183
    assert advice(1, 360, allowed=[]).frequency_days == 365
    assert advice(10_000, 360, allowed=[]).frequency_days == 1
    flooded = advice(360, 360)  # 12 in in 12 days
    assert (flooded.frequency_days, flooded.change) == (30, "shorten")


def test_the_citation_names_the_rule_and_the_citys_adjustment_clause():
    assert citation("victorville", {"twenty_five_percent_rule": "Victorville 10.03.160(f)(1)"}) == (
        "Victorville 10.03.160(f)(1); Victorville 10.03.160(f)(3)"
    )
    assert citation("placentia", {"twenty_five_percent_rule": "Placentia 16.24"}) == "Placentia 16.24"
    # A city whose citations say nothing: exchange policy, never another city's section.
    assert citation("placentia", {}) == "exchange policy"


def at(day, hour=9):
    return datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


@pytest.fixture
def city(client, session, frozen_clock):
    """Interceptors serviced every 90 days for a year, measured as each test says, filed
    through the API."""
    hauler = factories.hauler(session, vehicles=(("TRK-1", 3000),))
    credentials = factories.oauth_client(session, role="hauler", subject=[hauler.id])
    site = factories.disposal_site(session)
    numbers = iter(range(1, 1000))

    def device(name, *, kind="interceptor", city="victorville", depth=48):
        permit = factories.permit(
            session,
            fse_row=factories.fse(session, city=city, name=f"Restaurant {name}"),
            number=f"P-{name}",
            issued_on=date(2025, 1, 1),
        )
        return factories.device(session, permit_row=permit, kind=kind, tag=f"GI-{name}", liquid_depth_in=depth)

    def file(device, completed, depths=None, gallons=1500):
        frozen_clock(completed + timedelta(hours=2))
        n = next(numbers)
        body = {
            "manifest_number": f"F-{n}",
            "permit_number": f"P-{device.tag[3:]}",
            "device_tag": device.tag,
            "vehicle_id": "TRK-1",
            "driver_name": "D",
            "fse_signer_name": "S",
            "service_started_at": iso(completed - timedelta(hours=1)),
            "service_completed_at": iso(completed),
            "waste_type": "grease_interceptor_waste" if device.kind == "interceptor" else "grease_trap_waste",
            "gallons_removed": gallons,
            "full_pump_down": True,
            "measurements": {"fog_depth_in": depths[0], "solids_depth_in": depths[1]} if depths else None,
            "disposal": {
                "site_id": str(site.id),
                "ticket_number": f"T-{n}",
                "delivered_at": iso(completed + timedelta(hours=1)),
                "gallons_delivered": gallons,
            },
        }
        response = client.post(
            "/v1/manifests", json=body, headers=factories.bearer(factories.token(client, *credentials))
        )
        assert response.status_code == 201, response.json
        return response.json

    def quarterly(device, depths, services=5):
        """Serviced every 90 days from START; each service after the first measured at `depths`."""
        for i in range(services):
            file(device, at(START + timedelta(days=90 * i)), depths if i else None)

    return device, file, quarterly


def recommendations(client, session, **query):
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    response = client.get(
        "/v1/audit/frequency-recommendations",
        query_string={"as_of": AS_OF.isoformat(), **query},
        headers=factories.bearer(auditor),
    )
    assert response.status_code == 200, response.json
    return response


def test_auditor_sees_which_interceptors_the_measurements_call_to_service_more_or_less_often(
    client, session, city, frozen_clock
):
    device, file, quarterly = city
    quarterly(device("fast"), (8, 6))  # 14 in a quarter: over 12 in (25% of 48) by day 77
    quarterly(device("slow"), (2, 1.6))  # 3.6 in a quarter: 12 in only after 300 days
    quarterly(device("steady"), (6, 4))  # 10 in a quarter: day 108
    quarterly(device("sparse"), (6, 4), services=3)  # two intervals: not enough data yet
    quarterly(device("trap", kind="trap"), (1, 1))  # the 25% rule is an interceptor's
    quarterly(device("tracy", city="tracy"), (1, 1))  # another city's
    frozen_clock(at(AS_OF, 12))

    body = recommendations(client, session).json
    spec = load_spec()
    assert schema_errors(spec, {"$ref": "#/components/schemas/FrequencyRecommendations"}, body) == []
    assert (body["as_of"], body["min_intervals"], body["next_cursor"]) == ("2026-06-01", 3, None)
    rows = {row["device_tag"]: row for row in body["items"]}
    assert set(rows) == {"GI-fast", "GI-slow", "GI-steady"}
    fast = rows["GI-fast"]
    assert (fast["recommended_frequency_days"], fast["change"], fast["days_to_limit"]) == (60, "shorten", 77)
    assert (fast["measured_intervals"], fast["measured_from"], fast["measured_to"]) == (4, "2025-06-01", "2026-05-27")
    assert fast["accumulation_in_per_day"] == pytest.approx(14 / 90, abs=1e-4)
    assert fast["share_at_frequency"] == pytest.approx(0.292, abs=0.001)
    assert (fast["frequency_days"], fast["liquid_depth_in"], fast["fse_name"]) == (90, 48, "Restaurant fast")
    assert fast["citation"] == "Victorville 10.03.160(f)(1); Victorville 10.03.160(f)(3)"
    assert (rows["GI-slow"]["recommended_frequency_days"], rows["GI-slow"]["change"]) == (180, "lengthen")
    assert (rows["GI-steady"]["recommended_frequency_days"], rows["GI-steady"]["change"]) == (90, "keep")

    assert [row["device_tag"] for row in recommendations(client, session, change="shorten").json["items"]] == [
        "GI-fast"
    ]
    assert "GI-sparse" in {row["device_tag"] for row in recommendations(client, session, min_intervals=2).json["items"]}
    first = recommendations(client, session, limit=2).json
    rest = recommendations(client, session, limit=2, cursor=first["next_cursor"]).json
    assert [r["device_tag"] for r in first["items"] + rest["items"]] == [r["device_tag"] for r in body["items"]]
    assert rest["next_cursor"] is None

    table = list(csv.DictReader(io.StringIO(recommendations(client, session, format="csv").get_data(as_text=True))))
    assert {row["device_tag"]: (row["change"], row["change_words"]) for row in table} == {
        "GI-fast": ("shorten", "Pump more often"),
        "GI-slow": ("lengthen", "Could be pumped less often"),
        "GI-steady": ("keep", "Frequency is right"),
    }


def test_the_days_to_the_limit_are_counted_exactly(client, session, city, frozen_clock):
    """Victorville 10.03.160(f)(1): "the combined FOG and solids accumulation does not exceed
    twenty-five percent of the total design hydraulic depth": 9 in a quarter is 0.1 in a day,
    which reaches 12.6 in, a quarter of 50.4, on day 126 (binary floating point said 125)."""
    assert Accumulation(intervals=4, inches=Decimal("36"), days=360).days_to(Decimal("0.25"), Decimal("50.4")) == 126
    assert Accumulation(intervals=4, inches=36.0, days=360).days_to(0.25, 50.4) == 126
    device, file, quarterly = city
    quarterly(device("exact", depth=Decimal("50.4")), (5.1, 3.9))
    frozen_clock(at(AS_OF, 12))
    [row] = recommendations(client, session).json["items"]
    assert (row["liquid_depth_in"], row["days_to_limit"], row["recommended_frequency_days"]) == (50.4, 126, 120)


def test_an_interval_counts_from_a_full_pump_down_only(client, session, city, frozen_clock):
    device, file, _ = city
    gi = device("partial")
    file(gi, at(START))
    file(gi, at(START + timedelta(days=90)), (6, 4))
    file(gi, at(START + timedelta(days=180)), (6, 4), gallons=400)  # partial: not emptied
    file(gi, at(START + timedelta(days=200)), (1, 1))  # 20 days after the partial pump-down
    file(gi, at(START + timedelta(days=200), hour=15), (1, 1))  # the same service's second load
    file(gi, at(START + timedelta(days=290)), (6, 4))
    frozen_clock(at(AS_OF, 12))
    [row] = recommendations(client, session).json["items"]
    # 0 to 90, 90 to 180 (measured before the partial pump-down), 200 to 290.
    assert (row["measured_intervals"], row["accumulation_in_per_day"]) == (3, round(30 / 270, 4))
    # The record applies the same rule to the services it holds (domain.frequency.measured).
    operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[gi.fse_id]))
    record = client.get(f"/v1/fses/{gi.fse_id}/records", headers=factories.bearer(operator)).json
    [held] = record["devices"]
    assert (held["measured"]["intervals"], held["measured"]["accumulation_in_per_day"]) == (3, round(30 / 270, 4))
    assert (held["measured"]["recommended_frequency_days"], held["measured"]["change"]) == (
        row["recommended_frequency_days"],
        row["change"],
    )


def test_nothing_measured_is_an_empty_list_and_bad_arguments_are_422(client, session, city, frozen_clock):
    _, _, quarterly = city
    frozen_clock(at(AS_OF, 12))
    assert recommendations(client, session).json["items"] == []
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    for query in ({"min_intervals": 1}, {"change": "double"}, {"as_of": "2026-6-1"}, {"fse_id": "x"}):
        response = client.get(
            "/v1/audit/frequency-recommendations", query_string=query, headers=factories.bearer(auditor)
        )
        assert response.status_code == 422 and response.mimetype == "application/problem+json", query


def test_depths_filed_before_they_were_columns_are_read_from_the_bodies(app, client, session, city, frozen_clock):
    from sqlalchemy import select

    from storage.models import ManifestRevision

    device, file, _ = city
    gi = device("old")
    file(gi, at(START))
    file(gi, at(START + timedelta(days=90)), (6.5, 4))
    factories.migrated_again(app, session, down_to="0006")  # the columns gone, as before 0007
    depths = session.execute(
        select(ManifestRevision.fog_depth_in, ManifestRevision.solids_depth_in).order_by(
            ManifestRevision.service_completed_at
        )
    ).all()
    assert [tuple(row) for row in depths] == [(None, None), (6.5, 4.0)]


def test_the_binder_tells_the_operator_what_the_measurements_say(client, session, city, frozen_clock):
    """The FSE's binder shows the same rule over the services in its period as the auditor's
    list, read back from the PDF."""
    from pypdf import PdfReader

    device, file, quarterly = city
    fast, young = device("fast"), device("young")
    quarterly(fast, (8, 6))
    quarterly(young, (8, 6), services=3)
    frozen_clock(at(AS_OF, 12))
    [listed] = recommendations(client, session, fse_id=str(fast.fse_id)).json["items"]
    operator = factories.token(
        client, *factories.oauth_client(session, role="fse", subject=[fast.fse_id, young.fse_id])
    )

    def summary(gi):
        pdf = client.get(
            f"/v1/fses/{gi.fse_id}/records", query_string={"format": "pdf"}, headers=factories.bearer(operator)
        )
        assert pdf.status_code == 200
        return " ".join(PdfReader(io.BytesIO(pdf.data)).pages[1].extract_text().split())

    text = summary(fast)
    assert "Measured FOG and solids" in text
    assert f"GI-fast 4 0.156 in 77 d 29% of 48 in every {listed['recommended_frequency_days']} d (shorten)" in text
    assert "Victorville 10.03.160(f)(3)" in text
    assert "GI-young 2 0.156 in 77 d 29% of 48 in 1 more measured interval needed" in summary(young)


def test_a_recommendation_weighs_the_data_against_the_frequency_in_force(client, session, city, frozen_clock):
    """Victorville 10.03.160(f)(3): the FOG manager may adjust the frequency "when sufficient
    data has been obtained to establish an average frequency". A change to 60 days scheduled
    from 15 July is not yet the frequency on 1 June: the data (10 in a quarter, 25% by day 108)
    keep the 90 days in force then; from 15 July they call to lengthen the 60 back to 90."""
    from storage.models import DeviceFrequencyChange

    device, _, quarterly = city
    steady = device("steady")
    quarterly(steady, (6, 4))
    session.add(
        DeviceFrequencyChange(
            device_id=steady.id,
            from_days=90,
            to_days=60,
            effective_on=date(2026, 7, 15),
            noticed_on=date(2026, 6, 1),
            reason="scheduled",
        )
    )
    steady.frequency_days = 60
    session.commit()
    frozen_clock(at(AS_OF, 12))
    (row,) = recommendations(client, session).json["items"]
    assert (row["frequency_days"], row["recommended_frequency_days"], row["change"]) == (90, 90, "keep")
    frozen_clock(at(date(2026, 7, 15), 12))
    (row,) = recommendations(client, session, as_of="2026-07-15").json["items"]
    assert (row["frequency_days"], row["recommended_frequency_days"], row["change"]) == (60, 90, "lengthen")
    (row,) = recommendations(client, session, as_of="2026-07-14").json["items"]
    assert (row["frequency_days"], row["change"]) == (90, "keep")


def test_a_withdrawn_change_is_never_the_frequency_a_recommendation_weighs(client, session, city, frozen_clock):
    """Victorville 10.03.160(f)(3), as above; a change withdrawn before it took effect counts
    nowhere (exchange policy): on its day and after, the 90 days are still the frequency."""
    from datetime import UTC, datetime

    from storage.models import DeviceFrequencyChange

    device, _, quarterly = city
    steady = device("steady")
    quarterly(steady, (6, 4))
    session.add(
        DeviceFrequencyChange(
            device_id=steady.id,
            from_days=90,
            to_days=60,
            effective_on=date(2026, 7, 15),
            noticed_on=date(2026, 6, 1),
            reason="scheduled",
            withdrawn_at=datetime(2026, 6, 20, tzinfo=UTC),
            withdrawn_reason="Measured again.",
        )
    )
    session.commit()
    frozen_clock(at(date(2026, 7, 15), 12))
    (row,) = recommendations(client, session, as_of="2026-07-15").json["items"]
    assert (row["frequency_days"], row["change"]) == (90, "keep")
