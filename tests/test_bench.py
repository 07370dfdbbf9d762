"""The benchmark's own parts: the synthetic city it measures in, and the limits the API is
measured against: the hand-written statement beside its missed-services answer, and the plain
loop beside its ingest (a limit that asked another question, or wrote other rows, would flatter
or shame the API for nothing). The city is bulk-loaded with COPY: PostgreSQL.
"""

from datetime import UTC, date, datetime, timedelta

import psycopg
import pytest
from psycopg.rows import dict_row, namedtuple_row

from bench.audit_lists import HAND_WRITTEN_AS_OF
from bench.city import City
from bench.filing import api_filed, client_pk, ingest_plain, manifest_bodies
from storage.db import make_engine
from tests import factories
from tests.conftest import _empty

pytestmark = pytest.mark.postgresql_only

TODAY = datetime(2026, 6, 1, 12, tzinfo=UTC)
DEVICES, MANIFESTS = 80, 800

CONTENTS = """
SELECT m.manifest_number, p.permit_number, d.tag, j.code, r.service_completed_at, r.received_at,
       r.gallons_removed, r.full_pump_down, r.decant_returned_gallons, r.disposal_ticket_number,
       r.qualifying, ARRAY(SELECT f.code FROM findings f WHERE f.revision_id = r.id ORDER BY f.code) AS codes
FROM manifests m JOIN manifest_revisions r ON r.manifest_id = m.id
JOIN devices d ON d.id = m.device_id JOIN permits p ON p.id = m.permit_id
JOIN jurisdictions j ON j.id = m.jurisdiction_id
ORDER BY m.manifest_number
"""


def _dsn(database_url):
    return database_url.replace("postgresql+psycopg://", "postgresql://")


def _city(database_url, seed):
    city = City(_dsn(database_url), seed=seed, devices=DEVICES, today=TODAY)
    city.build_registry()
    city.add_manifests(MANIFESTS)
    return city


def _contents(database_url):
    """What the city holds, without the ids generated for it."""
    with psycopg.connect(_dsn(database_url), row_factory=namedtuple_row) as conn:
        return conn.execute(CONTENTS).fetchall()


def _start_over(database_url):
    engine = make_engine(database_url)
    _empty(engine)
    engine.dispose()


def test_the_city_is_the_same_from_the_same_seed_and_realistic(app, database_url):
    _city(database_url, seed=7)
    first = _contents(database_url)
    _start_over(database_url)
    _city(database_url, seed=7)
    again = _contents(database_url)
    _start_over(database_url)
    _city(database_url, seed=8)
    other = _contents(database_url)

    assert len(first) == MANIFESTS
    assert again == first
    assert other != first

    def share(code):
        return sum(code in row.codes for row in first) / len(first)

    # The proportions the harness promises (bench/README.md), within what 800 draws allow.
    assert 0.04 <= share("late_submission") <= 0.13
    assert 0.02 <= share("partial_pump_down") <= 0.09
    assert 0.01 <= share("disposal_unconfirmed") <= 0.06
    assert sum(row.decant_returned_gallons > 0 for row in first) >= 1
    assert sum(row.code == "victorville" for row in first) / len(first) >= 0.6
    assert {row.code for row in first} == {"victorville", "placentia", "colusa", "san-clemente", "tracy"}
    completed = [row.service_completed_at for row in first]
    assert min(completed) >= TODAY - timedelta(days=3 * 365) and max(completed) < TODAY
    # A manifest qualifies unless it was partial or decanted, as the checks decide.
    assert all(row.qualifying == (row.full_pump_down and not row.decant_returned_gallons) for row in first)


# Each qualifying service in force against the one before it on its device, as the API keeps them.
UNLINKED = """
SELECT count(*) FILTER (WHERE previous_service_at IS DISTINCT FROM previous) AS wrong,
       count(*) FILTER (WHERE previous IS NOT NULL) AS linked
FROM (SELECT previous_service_at, lag(service_completed_at) OVER (
        PARTITION BY device_id ORDER BY service_completed_at, manifest_id) AS previous
      FROM manifest_revisions WHERE in_force AND qualifying) AS counted
"""


def test_the_city_links_each_service_to_the_one_before_as_the_api_does(app, database_url):
    city = _city(database_url, seed=5)
    with psycopg.connect(_dsn(database_url), row_factory=namedtuple_row) as conn:
        first = conn.execute(UNLINKED).fetchone()
        # Grown by as many again, spread over the same years: most services gain a new one before.
        city.add_manifests(2 * MANIFESTS)
        grown = conn.execute(UNLINKED).fetchone()
    assert first.wrong == grown.wrong == 0
    assert first.linked > MANIFESTS / 2 and grown.linked > first.linked + MANIFESTS / 2


@pytest.mark.parametrize("as_of", [date(2026, 6, 1), date(2025, 3, 1)])
def test_the_hand_written_as_of_statement_asks_what_the_api_answers(client, session, database_url, as_of):
    city = _city(database_url, seed=11)
    auditor = factories.token(client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    answer = client.get(
        "/v1/audit/missed-services",
        query_string={"as_of": as_of.isoformat(), "limit": 1000},
        headers=factories.bearer(auditor),
    )
    assert answer.status_code == 200, answer.json
    api = answer.json["items"]

    with psycopg.connect(_dsn(database_url), row_factory=dict_row) as conn:
        rows = conn.execute(
            HAND_WRITTEN_AS_OF,
            {"as_of": as_of, "end": as_of + timedelta(days=1), "jurisdiction": city.jurisdictions["victorville"]},
        ).fetchall()
    # Field for field, in the same order: the statement answers all the API answers.
    hand_written = [
        {name: value if value is None or isinstance(value, int) else str(value) for name, value in row.items()}
        for row in rows
    ]

    assert len(api) >= 5  # a question with answers, not two empty lists agreeing
    assert api == hand_written


# Each row of a filing as what it holds: which columns are set, and the values that do not
# name this filing (its ids, number, times and body differ from any other's by design).
SHAPES = """
SELECT m.manifest_number,
       (SELECT array_agg(key ORDER BY key) FROM jsonb_each(to_jsonb(m)) WHERE value <> 'null') AS manifest,
       (SELECT array_agg(key ORDER BY key) FROM jsonb_each(to_jsonb(r)) WHERE value <> 'null') AS revision,
       r.revision, r.qualifying, r.submitted_by_client_id, r.previous_sha256, r.reason,
       ARRAY(SELECT ARRAY[f.code, f.severity, f.message, f.citation, (f.cleared_at IS NULL)::text]
             FROM findings f WHERE f.revision_id = r.id ORDER BY f.code) AS findings,
       ARRAY(SELECT ARRAY[c.kind, c.revision::text, c.detail::jsonb::text, (c.txid > 0)::text,
                          (c.at = r.received_at AND c.manifest_number = m.manifest_number
                           AND c.hauler_id = m.hauler_id AND c.fse_id = m.fse_id
                           AND c.jurisdiction_id = m.jurisdiction_id)::text]
             FROM changes c WHERE c.manifest_id = m.id ORDER BY c.seq) AS changes
FROM manifests m JOIN manifest_revisions r ON r.manifest_id = m.id
WHERE m.manifest_number = ANY(%s) ORDER BY m.manifest_number
"""


def test_the_plain_loop_writes_the_rows_the_api_writes(client, session, database_url):
    city = _city(database_url, seed=13)
    hauler_id = city.haulers[0][0]
    client_id, secret = factories.oauth_client(session, role="hauler", subject=[hauler_id])
    bearer = factories.bearer(factories.token(client, client_id, secret))
    filed = manifest_bodies(city, 8, "API")
    filed[0]["full_pump_down"] = False  # a partial pump-down: its revision does not qualify
    for body in filed:
        answer = client.post("/v1/manifests", json=body, headers=bearer)
        assert answer.status_code == 201, answer.json
    beside = api_filed(_dsn(database_url), hauler_id, filed)
    # Services months after the city's last: the API raised findings the loop must write too.
    assert sum(len(each.findings) for each in beside) >= len(filed)
    assert [each.qualifying for each in beside] == [False] + [True] * (len(filed) - 1)

    pk = client_pk(_dsn(database_url), client_id)
    plain = manifest_bodies(city, 8, "LOOP", offset=8)
    ingest_plain(_dsn(database_url), city, plain, beside, pk)
    with psycopg.connect(_dsn(database_url)) as conn:
        by_api = conn.execute(SHAPES, ([b["manifest_number"] for b in filed],)).fetchall()
        by_loop = conn.execute(SHAPES, (["P" + b["manifest_number"] for b in plain],)).fetchall()

    assert len(by_api) == len(by_loop) == len(filed)
    for api_row, loop_row in zip(by_api, by_loop):
        assert api_row[1:] == loop_row[1:]
        assert api_row[5] == pk
        [(kind, _, _, _, agrees)] = api_row[-1]  # one entry of the change feed, of this filing
        assert kind == "manifest.filed" and agrees == "true"
    # On several connections at once, each writes its share of the same rows.
    parallel = manifest_bodies(city, 8, "PAR", offset=16)
    ingest_plain(_dsn(database_url), city, parallel, beside, pk, connections=3)
    with psycopg.connect(_dsn(database_url)) as conn:
        by_parallel = conn.execute(SHAPES, (["P" + b["manifest_number"] for b in parallel],)).fetchall()
    assert [row[1:] for row in by_parallel] == [row[1:] for row in by_loop]
