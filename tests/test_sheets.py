"""Every list that is a query, as CSV written by PostgreSQL itself and as written from its rows in
Python: equal row for row, cell for cell, for names a spreadsheet would run as formulas, evening
times in California and whole days."""

import csv
import io
from datetime import date, timedelta

import pytest

from auth.principal import principal_of
from domain import words
from reports import table_csv
from services.audit import lists as audit
from storage import sheets
from storage.models import OAuthClient
from tests import factories
from tests.manifest_world import NOW, build

pytestmark = pytest.mark.postgresql_only
# Names a spreadsheet would run, and ones it would take as numbers.
NAMES = ('=HYPERLINK("http://x")', "+Wok", "-5", "@Grill", "\tTab Diner", "\rReturn Cafe", "", "1e3", "Plain Tacos")


@pytest.fixture
def city(client, session, frozen_clock):
    """A hauler's services in Victorville at several restaurants: one filed late, one whose
    service ended at 23:30 Pacific, devices gone past due; restaurants with hostile names."""
    frozen_clock(NOW)
    world = build(client, session)
    for n, name in enumerate(NAMES):
        permit = factories.permit(session, fse_row=factories.fse(session, name=name or f"Unnamed {n}"))
        factories.device(session, permit_row=permit, tag=f"GI-{n}", frequency_days=30 + n)
        permit.fse.name = name  # an empty name too, which the factory would not take
        session.commit()
        body = world.body(
            completed=NOW - timedelta(days=40 + 9 * n, hours=1),
            permit_number=permit.permit_number,
            device_tag=f"GI-{n}",
        )
        assert world.post(body).status_code == 201
    # Filed late (a finding that names its service time): 23:30 PDT, the evening before a UTC day.
    evening = world.body(completed=NOW.replace(hour=6, minute=30) - timedelta(days=5))
    assert world.post(evening).status_code == 201

    def principal(role, subject):
        client_id, _ = factories.oauth_client(session, role=role, subject=subject)
        return principal_of(session.query(OAuthClient).filter_by(client_id=client_id).one())

    return {"auditor": principal("auditor", ["victorville"]), "hauler": principal("hauler", [world.hauler.id])}


def lists(session, city):
    """(name, query, zone) of every list that is a query."""
    auditor, hauler = city["auditor"], city["hauler"]
    listings = [
        ("missed as of today", audit.missed_services(session, auditor)),
        ("missed as of a past day", audit.missed_services(session, auditor, as_of=NOW.date() - timedelta(days=20))),
        (
            "missed intervals",
            audit.missed_services(session, auditor, period_from=date(2025, 6, 1), period_to=NOW.date()),
        ),
        ("findings", audit.findings(session, auditor)),
        ("due", audit.due_for_hauler(session, hauler, within_days=365)),
    ]
    return [(name, listing.query, listing.zone()) for name, listing in listings]


def rows_of(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_every_list_as_postgresql_writes_it_is_the_python_sheet_row_for_row(session, city, app):
    engine = app.extensions["fogx.engine"]
    for name, query, zone in lists(session, city):
        python = rows_of("".join(table_csv.render(audit.every_row(session, query), zone=zone)))
        copied = sheets.sheet(engine, query, zone=zone)
        assert copied is not None, f"{name}: not written by PostgreSQL"
        postgres = rows_of(b"".join(copied).decode())
        assert len(python) > 1, f"{name}: the list is empty; the comparison would prove little"
        for left, right in zip(postgres, python):
            assert left == right, (name, [(a, b) for a, b in zip(left, right) if a != b])
        assert len(postgres) == len(python), name


def test_the_sheets_hold_what_they_are_compared_on(session, city, app):
    """The comparison above covers formula cells, an evening's local time and whole days."""
    engine = app.extensions["fogx.engine"]
    written = {
        name: b"".join(sheets.sheet(engine, query, zone=zone)).decode() for name, query, zone in lists(session, city)
    }
    every = "".join(written.values())
    assert "'=HYPERLINK" in every and "'+Wok" in every and "'@Grill" in every and "'\tTab Diner" in every
    assert "-5" in every and "'-5" not in every  # a number, not a formula
    assert "2026-05-26 23:30 -07:00" in written["findings"]
    header = rows_of(written["missed intervals"])[0]
    assert not [column for column in header if column.endswith("_day")]
    # Each code with its words in the column beside it, written alike by both (compared above).
    findings = rows_of(written["findings"])
    named = dict(zip(findings[0], findings[1]))
    assert findings[0][findings[0].index("code") + 1] == "code_words"
    assert named["code_words"] == words.finding(named["code"]) != named["code"]
    assert (named["severity_words"], named["basis_words"]) == (
        words.severity(named["severity"]),
        words.BASES[named["basis"]],
    )
    for name in ("missed as of today", "due"):
        sheet = rows_of(written[name])
        status = dict(zip(sheet[0], sheet[1]))
        assert status["status_words"] == words.status(status["status"])
        assert status["permit_status_words"] == words.PERMIT_STATUSES[status["permit_status"]]
        assert status["device_kind_words"] == words.DEVICE_KINDS[status["device_kind"]]
        for code in ("status", "permit_status", "device_kind"):
            assert sheet[0][sheet[0].index(code) + 1] == f"{code}_words", name
    intervals = rows_of(written["missed intervals"])
    counted = {
        row[intervals[0].index("counted_from")]: row[intervals[0].index("counted_from_words")] for row in intervals[1:]
    }
    assert counted and counted == {code: words.COUNTED_FROM[code] for code in counted}
    assert intervals[0][intervals[0].index("counted_from") + 1] == "counted_from_words"


def test_a_sheet_asked_over_http_is_written_by_postgresql(client, session, city, app):
    token = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    answer = client.get("/v1/audit/findings", query_string={"format": "csv"}, headers=factories.bearer(token))
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    # PostgreSQL ends its lines with LF alone; Python's csv module with CRLF.
    assert b"\r\n" not in answer.data and answer.data.count(b"\n") > 3
    auditor = city["auditor"]
    python = "".join(
        table_csv.render(
            audit.every_row(session, audit.findings(session, auditor).query),
            zone=audit.zone_of(session, auditor.jurisdiction_id),
        )
    )
    assert rows_of(answer.data.decode()) == rows_of(python)
