"""The restaurant's own maintenance log of the grease traps its kitchen cleans itself: written by
the FSE's people and clients, read by anyone within reach of the FSE, never edited or deleted,
and judged where the city's text says how often the kitchen cleans a trap."""

import io
import json
from datetime import UTC, date, datetime

import pytest
from pypdf import PdfReader

from tests import factories

# The frozen clock's day: 2026-06-01 12:00 UTC is 05:00 on 1 June in California.
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
DAILY = {
    # Facilities Requirements (c)(3): "Grease traps shall be maintained in efficient operating
    # conditions by removing accumulated grease on a daily basis."
    "placentia": "Placentia 16.24 Facilities Requirements (c)(3)",
    # Art. II grease traps B: "Existing grease traps shall be maintained in efficient operating
    # condition by daily removal of the accumulated grease."
    "colusa": "Colusa 15A Art. II grease traps B",
}


class Kitchen:
    """An FSE in `city` with a trap and an interceptor, and a token for its own people."""

    def __init__(self, client, session, city):
        self.client = client
        self.permit = factories.permit(
            session,
            fse_row=factories.fse(session, city=city),
            issued_on=date(2026, 5, 20),
            expires_on=date(2027, 5, 19),
        )
        self.fse = self.permit.fse
        self.trap = factories.device(
            session,
            permit_row=self.permit,
            tag="GT-1",
            kind="trap",
            capacity_gallons=50,
            liquid_depth_in=12,
            frequency_days=30,
        )
        self.interceptor = factories.device(session, permit_row=self.permit, tag="GI-1")
        self.token = factories.token(client, *factories.oauth_client(session, role="fse", subject=[self.fse.id]))
        self.path = f"/v1/fses/{self.fse.id}/maintenance-log"

    def clean(self, day, *, token=None, device=None, **fields):
        body = {
            "device_id": str((device or self.trap).id),
            "cleaned_on": day,
            "cleaned_by": "Luis, line cook",
            **fields,
        }
        return self.client.post(self.path, json=body, headers=factories.bearer(token or self.token))

    def read(self, token=None, **query):
        return self.client.get(self.path, query_string=query, headers=factories.bearer(token or self.token))


@pytest.mark.parametrize("city", sorted(DAILY))
def test_a_day_without_a_cleaning_is_listed_with_the_citys_section(client, session, frozen_clock, city):
    """DAILY: the kitchen removes the grease every day. Cleaned on 29, 30 May and 1 June, the log
    lists 31 May, the one day without, citing the city's section; a day with two entries is one
    cleaned day, and days before the permit's first (20 May) are not asked for."""
    frozen_clock(NOW)
    kitchen = Kitchen(client, session, city)
    for day in ("2026-05-29", "2026-05-30", "2026-06-01", "2026-06-01"):
        assert kitchen.clean(day).status_code == 201
    log = kitchen.read(**{"from": "2026-05-29", "to": "2026-06-01"})
    assert log.status_code == 200, log.json
    assert log.json["rule"] == {"every_days": 1, "citation": DAILY[city], "basis": "ordinance"}
    assert [e["cleaned_on"] for e in log.json["items"]] == ["2026-05-29", "2026-05-30", "2026-06-01", "2026-06-01"]
    assert log.json["missing"] == [
        {"device_id": str(kitchen.trap.id), "device_tag": "GT-1", "day": "2026-05-31", "citation": DAILY[city]}
    ]
    # Every day of the period cleaned: nothing listed.
    assert kitchen.clean("2026-05-31").status_code == 201
    assert kitchen.read(**{"from": "2026-05-29", "to": "2026-06-01"}).json["missing"] == []
    # The last thirty days unless asked, counted from the permit's first day (20 May).
    default = kitchen.read().json
    assert (default["from"], default["to"]) == ("2026-05-03", "2026-06-01")
    assert [m["day"] for m in default["missing"]] == [f"2026-05-{d}" for d in range(20, 29)]


@pytest.mark.parametrize("city", ["victorville", "san-clemente", "tracy"])
def test_a_city_without_the_daily_rule_lists_no_missing_days(client, session, frozen_clock, city):
    """Victorville 10.03.170(c)(1), San Clemente 13.30.050(H)(1)(c) and Tracy 5.26 records (a)
    ask for a record of cleaning and maintenance but set no daily cleaning by the kitchen: the
    log is kept and read, and no day is listed as missing (`rule` null)."""
    frozen_clock(NOW)
    kitchen = Kitchen(client, session, city)
    assert kitchen.clean("2026-05-25").status_code == 201
    log = kitchen.read(**{"from": "2026-05-20", "to": "2026-06-01"}).json
    assert (log["rule"], log["missing"], len(log["items"])) == (None, [], 1)


def test_the_log_is_the_restaurants_own_and_never_changed(client, session, frozen_clock):
    """The FSE's people write it; the city's auditors and admins read it; nobody else reaches
    it; an entry, once written, is neither edited nor deleted."""
    frozen_clock(NOW)
    kitchen = Kitchen(client, session, "placentia")
    written = kitchen.clean("2026-05-31", note="Baffles scraped")
    assert written.status_code == 201
    entry = written.json
    assert (entry["device_tag"], entry["cleaned_by"], entry["note"]) == ("GT-1", "Luis, line cook", "Baffles scraped")
    other = Kitchen(client, session, "placentia")
    # Another restaurant's people reach neither this log nor this FSE.
    assert kitchen.clean("2026-05-31", token=other.token).status_code == 404
    assert kitchen.read(token=other.token).status_code == 404
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["placentia"]))
    admin = factories.token(client, *factories.oauth_client(session, role="admin", subject=["placentia"]))
    factories.jurisdiction(session, "colusa")
    elsewhere = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["colusa"]))
    assert [e["id"] for e in kitchen.read(token=auditor).json["items"]] == [entry["id"]]
    assert kitchen.read(token=elsewhere).status_code == 404
    # The city reads; it does not write the kitchen's log.
    assert kitchen.clean("2026-05-31", token=admin).status_code == 403
    for method in ("put", "patch", "delete"):
        assert getattr(client, method)(kitchen.path, headers=factories.bearer(kitchen.token)).status_code == 405
    assert len(kitchen.read().json["items"]) == 1


def test_what_the_log_refuses(client, session, frozen_clock):
    """An interceptor is pumped by a hauler (a manifest), not logged; a day after today, a device
    of another FSE, or a missing name is a 422 naming the field."""
    frozen_clock(NOW)
    kitchen = Kitchen(client, session, "colusa")
    interceptor = kitchen.clean("2026-05-31", device=kitchen.interceptor)
    assert interceptor.status_code == 422 and interceptor.mimetype == "application/problem+json"
    assert list(interceptor.json["errors"]) == ["device_id"]
    assert list(kitchen.clean("2026-06-02").json["errors"]) == ["cleaned_on"]
    assert kitchen.clean("2026-06-01").status_code == 201  # today, in California
    other = Kitchen(client, session, "colusa")
    assert list(kitchen.clean("2026-05-31", device=other.trap).json["errors"]) == ["device_id"]
    assert list(kitchen.clean("2026-05-31", cleaned_by="").json["errors"]) == ["cleaned_by"]
    backwards = kitchen.read(**{"from": "2026-06-01", "to": "2026-05-01"})
    assert backwards.status_code == 422 and list(backwards.json["errors"]) == ["to"]


def test_a_restaurants_person_writes_the_log_under_their_own_name(client, session, frozen_clock):
    """The FSE's people sign in and record a cleaning; the entry names the person, not the
    membership's client; a person asking only `records:read` reads but does not write."""
    from tests import people_factories as pf

    frozen_clock(NOW)
    kitchen = Kitchen(client, session, "colusa")
    owner = pf.person_token(
        client,
        session,
        email="owner@kitchen.example",
        organisation="restaurant",
        role="operator",
        scope="records:read maintenance:write",
        fse_ids=[kitchen.fse.id],
    )
    written = kitchen.clean("2026-05-31", token=owner)
    assert written.status_code == 201, written.json
    assert written.json["recorded_by"]["person_name"] == "Pat Doe"
    assert written.json["recorded_by"]["client_id"] is None
    reader = pf.person_token(
        client,
        session,
        email="cook@kitchen.example",
        organisation="restaurant",
        role="operator",
        fse_ids=[kitchen.fse.id],
    )
    assert kitchen.clean("2026-05-31", token=reader).status_code == 403
    assert [e["recorded_by"]["person_name"] for e in kitchen.read(token=reader).json["items"]] == ["Pat Doe"]


def test_an_existing_registry_moves_the_daily_removal_to_the_kitchens_log(app, client, session):
    """Migration 0031 on a registry from before it: Placentia's stored rules had traps serviced by
    a hauler daily (citing (c)(3)), and a trap given no frequency took that day. After it the
    daily removal is the kitchen's log (`trap_daily_cleaning`, citing (c)(3)), the trap and the
    city's default are the exchange's 30 days, a trap given its own frequency keeps it, and the
    restaurant's client may write the log."""
    from sqlalchemy import select, text

    from storage import migrate
    from storage.models import Device, Jurisdiction, OAuthClient

    permit = factories.permit(session, fse_row=factories.fse(session, city="placentia"))
    defaulted = factories.device(session, permit_row=permit, tag="GT-1", kind="trap", frequency_days=1)
    assigned = factories.device(session, permit_row=permit, tag="GT-2", kind="trap", frequency_days=1)
    factories.oauth_client(session, role="fse", subject=[permit.fse_id])
    ids = (defaulted.id, assigned.id)
    session.close()
    engine = app.extensions["fogx.engine"]
    engine.dispose()
    migrate.downgrade(engine, "0026")
    old = {"trap_frequency": DAILY["placentia"], "trap_default_frequency_days": DAILY["placentia"]}
    with engine.begin() as connection:
        citations = connection.execute(text("SELECT citations FROM jurisdictions WHERE code = 'placentia'")).scalar()
        citations = citations if isinstance(citations, dict) else json.loads(citations)
        connection.execute(
            text(
                "UPDATE jurisdictions SET trap_default_frequency_days = 1, citations = :cited WHERE code = 'placentia'"
            ),
            {"cited": json.dumps({**citations, **old})},
        )
        connection.execute(text("UPDATE devices SET frequency_source = 'city_default' WHERE tag = 'GT-1'"))
        assert connection.execute(text("SELECT scope FROM oauth_clients WHERE role = 'fse'")).scalar() == "records:read"
    migrate.upgrade(engine)
    engine.dispose()
    city = session.scalar(select(Jurisdiction).where(Jurisdiction.code == "placentia"))
    assert (city.trap_default_frequency_days, city.trap_daily_cleaning) == (30, 1)
    assert (
        city.citations["trap_frequency"],
        city.citations["trap_default_frequency_days"],
        city.citations["trap_daily_cleaning"],
    ) == ("exchange policy", "exchange policy", DAILY["placentia"])
    assert city.permit_term == {"years": 1, "longer": "warned"}
    frequencies = dict(session.execute(select(Device.tag, Device.frequency_days).where(Device.id.in_(ids))).all())
    assert frequencies == {"GT-1": 30, "GT-2": 1}
    assert (
        session.scalar(select(OAuthClient.scope).where(OAuthClient.role == "fse")) == "records:read maintenance:write"
    )


def test_a_trap_asks_for_no_cleaning_while_its_permit_is_not_in_force(client, session, frozen_clock):
    """Placentia 16.24 Facilities Requirements (c)(3): "Grease traps shall be maintained in
    efficient operating conditions by removing accumulated grease on a daily basis." The days
    are those the trap's permit was in force, as the service clock counts them: a permit of
    1 May revoked on 10 May lists 1 to 9 May only, not every day to 1 June; reinstated on
    25 May, its days from then are asked for again."""
    from storage.models import PermitStatusChange

    frozen_clock(NOW)
    kitchen = Kitchen(client, session, "placentia")
    kitchen.permit.issued_on = date(2026, 5, 1)
    kitchen.permit.status_changes[0].effective_on = date(2026, 5, 1)
    session.add(PermitStatusChange(permit_id=kitchen.permit.id, status="revoked", effective_on=date(2026, 5, 10)))
    session.commit()
    period = {"from": "2026-05-01", "to": "2026-06-01"}
    missing = [m["day"] for m in kitchen.read(**period).json["missing"]]
    assert missing == [f"2026-05-0{d}" for d in range(1, 10)]
    session.add(PermitStatusChange(permit_id=kitchen.permit.id, status="active", effective_on=date(2026, 5, 25)))
    session.commit()
    missing = [m["day"] for m in kitchen.read(**period).json["missing"]]
    assert missing == [f"2026-05-0{d}" for d in range(1, 10)] + [f"2026-05-{d}" for d in range(25, 32)] + ["2026-06-01"]
    # The record and the binder carry the same days, as runs per trap, with the city's section.
    period = {"from": "2026-05-01", "to": "2026-06-01"}
    record = kitchen.client.get(
        f"/v1/fses/{kitchen.fse.id}/records", query_string=period, headers=factories.bearer(kitchen.token)
    ).json
    section = DAILY["placentia"]
    assert record["maintenance_missing"] == [
        {"device_id": str(kitchen.trap.id), "device_tag": "GT-1", "from": f, "to": t, "days": n, "citation": section}
        for f, t, n in (("2026-05-01", "2026-05-09", 9), ("2026-05-25", "2026-06-01", 8))
    ]
    pdf = kitchen.client.get(
        f"/v1/fses/{kitchen.fse.id}/records",
        query_string={**period, "format": "pdf"},
        headers=factories.bearer(kitchen.token),
    )
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf.data)).pages)
    assert "Grease traps the kitchen cleans itself" in text
    assert "2026-05-01 to 2026-05-09; 2026-05-25 to 2026-06-01" in text and section in text
