"""The skeleton: health, readiness, problem+json errors, migrations, presets and the CLI."""

import json
import re
from datetime import UTC, date, datetime, time, timedelta

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from storage import migrate
from storage.db import make_engine
from storage.models import Base
from tests import factories
from tests.conftest import https_client


def assert_problem(response, status):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.json
    assert body["status"] == status
    for member in ("type", "title", "detail"):
        assert isinstance(body[member], str) and body[member]
    return body


def test_health_answers_ok(client):
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json == {"status": "ok"}


def test_ready_checks_database_and_store(client):
    response = client.get("/ready")
    assert response.status_code == 200
    assert response.json["checks"] == {"database": "ok", "object_store": "ok"}


def test_ready_is_503_problem_when_the_store_is_unreachable(make_app, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store folder should be")
    app = make_app(STORAGE_DIR=str(blocker / "objects"))
    body = assert_problem(app.test_client().get("/ready"), 503)
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["object_store"].startswith("unavailable")


def test_ready_is_503_problem_when_the_database_is_unreachable(make_app, tmp_path):
    app = make_app(DATABASE_URL="postgresql://nobody@127.0.0.1:1/none")
    response = app.test_client().get("/ready")
    body = assert_problem(response, 503)
    assert response.headers["Retry-After"]
    assert body["checks"]["database"].startswith("unavailable")


def test_unknown_route_is_problem_404(client):
    body = assert_problem(client.get("/no/such/route"), 404)
    assert body["type"] == "https://fogx.test/problems/not-found"


def test_wrong_method_is_problem_405_with_allow(client):
    response = client.delete("/health")
    assert_problem(response, 405)
    assert "GET" in response.headers["Allow"]


def test_oversized_body_is_problem_413(make_app):
    app = make_app(MAX_JSON_BYTES=1024)
    response = https_client(app).post("/oauth/token", data={"grant_type": "client_credentials", "pad": "x" * 4096})
    assert_problem(response, 413)


def test_oversized_chunked_body_is_problem_413(make_app):
    import requests

    from tests.conftest import serve

    app = make_app(MAX_JSON_BYTES=1024)

    def chunks():  # no Content-Length: requests sends Transfer-Encoding: chunked
        yield b"grant_type=client_credentials"
        for _ in range(16):
            yield b"&pad=" + b"x" * 512

    with serve(app) as base:
        response = requests.post(
            f"{base}/oauth/token",
            data=chunks(),
            timeout=10,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
    assert response.status_code == 413
    assert response.headers["Content-Type"] == "application/problem+json"


def test_unexpected_error_is_problem_500_without_traceback(make_app):
    app = make_app()

    @app.get("/boom")
    def boom():
        raise RuntimeError("secret internals /etc/passwd")

    response = app.test_client().get("/boom")
    body = assert_problem(response, 500)
    text = response.get_data(as_text=True)
    assert "Traceback" not in text and "secret internals" not in text
    assert body["request_id"] == response.headers["X-Request-Id"]


def test_every_response_carries_a_request_id(client):
    response = client.get("/health", headers={"X-Request-Id": "dispatch-42"})
    assert response.headers["X-Request-Id"] == "dispatch-42"
    generated = client.get("/health", headers={"X-Request-Id": "bad id <script>"})
    assert generated.headers["X-Request-Id"] != "bad id <script>"
    assert len(generated.headers["X-Request-Id"]) == 32


def test_migrations_build_exactly_the_models(app):
    engine = app.extensions["fogx.engine"]
    with engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diff == []
    assert set(inspect(engine).get_table_names()) >= set(Base.metadata.tables)


def test_every_migration_can_be_undone_and_done_again(database_url, tmp_path):
    """A deploy rolled back runs the downgrades: down to nothing, up again, the models again."""
    url = make_engine(database_url).url
    if url.get_backend_name() == "postgresql":
        with create_engine(url).begin() as connection:
            connection.execute(text("DROP SCHEMA IF EXISTS migrations_undone CASCADE"))
            connection.execute(text("CREATE SCHEMA migrations_undone"))
        engine = create_engine(url, connect_args={"options": "-c search_path=migrations_undone"})
    else:
        engine = create_engine(f"sqlite:///{tmp_path / 'undone.sqlite3'}")
    try:
        migrate.upgrade(engine)
        assert migrate.current(engine) is not None
        migrate.downgrade(engine, "base")
        assert migrate.current(engine) is None
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        migrate.upgrade(engine)
        with engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    finally:
        if url.get_backend_name() == "postgresql":
            with engine.begin() as connection:
                connection.execute(text("DROP SCHEMA migrations_undone CASCADE"))
        engine.dispose()


def test_presets_cli_lists_all_five_with_citations(app):
    """Every rule of each city, as its ordinance says it (section and words) or as exchange
    policy; never another city's section."""
    result = app.test_cli_runner().invoke(args=["jurisdictions", "presets"])
    assert result.exit_code == 0, result.output
    blocks = dict(re.findall(r"^([a-z-]+): City of .+\n((?:  .*\n)+)", result.output, re.M))
    assert sorted(blocks) == ["colusa", "placentia", "san-clemente", "tracy", "victorville"]
    victorville, tracy = blocks["victorville"], blocks["tracy"]
    assert "manifest_deadline_hours = 72  [ordinance: Victorville 10.03.170(b)]" in victorville
    assert (
        '"Each permittee shall be responsible to provide copies of all service manifests directly to '
        'the FOG manager not later than seventy-two hours after GCDs are serviced."'
    ) in victorville
    assert "retention_years = 3  [exchange policy]" in victorville  # 10.03.170(c) asks two years
    assert "manifest_deadline_hours = 72  [exchange policy]" in tracy
    assert "min_interceptor_gallons = 1000  [ordinance: Colusa" in blocks["colusa"]
    assert "interceptor_max_interval_months = 12  [ordinance: Colusa 15A-16(C)(2)]" in blocks["colusa"]
    assert "min_outlet_clearance_in = 2.0  [ordinance: San Clemente 13.30.040(C)(7)]" in blocks["san-clemente"]
    for code, block in blocks.items():
        rules = [line for line in block.splitlines() if re.match(r"^  \w+ = .+  \[.+\]$", line)]
        assert len(rules) == 33, code
        others = {
            "placentia": "Placentia",
            "colusa": "Colusa",
            "san-clemente": "San Clemente",
            "victorville": "Victorville",
            "tracy": "Tracy",
        }
        cited = [line for line in rules if "[ordinance:" in line]
        assert all(f"[ordinance: {others[code]} " in line for line in cited), code


def test_jurisdictions_add_creates_once(app, session):
    runner = app.test_cli_runner()
    first = runner.invoke(args=["jurisdictions", "add", "--preset", "tracy"])
    second = runner.invoke(args=["jurisdictions", "add", "--preset", "tracy"])
    assert first.exit_code == 0 and first.output.startswith("created: tracy")
    assert second.exit_code == 0 and second.output.startswith("exists: tracy")
    listed = runner.invoke(args=["jurisdictions", "list"])
    assert listed.output.count("tracy") == 1
    bad = runner.invoke(args=["jurisdictions", "add", "--preset", "gotham"])
    assert bad.exit_code != 0 and "no preset 'gotham'" in bad.output


def test_demo_loader_is_idempotent_and_its_clients_work(app, client):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["demo", "load"]).output.strip() == "demo data loaded"
    assert runner.invoke(args=["demo", "load"]).output.strip() == "demo data already loaded"
    for role in ("hauler", "fse", "auditor", "admin"):
        access = factories.token(client, f"demo-{role}", f"demo-{role}-secret")
        listed = client.get("/v1/jurisdictions", headers=factories.bearer(access))
        assert listed.status_code == 200 and listed.json["items"]


@pytest.mark.parametrize("load_day", [date(2026, 12, 3), date(2029, 2, 28)])
def test_the_demo_has_a_year_of_services_to_show(app, client, frozen_clock, load_day):
    """The demo hauler's services of the year before went through the checks: the auditor sees
    Golden Wok's missed interceptor service and what the measured depths say of both
    interceptors' frequencies. The year is the one before the day the demo is loaded, so the
    README's walkthrough shows the same whenever it is tried."""
    frozen_clock(datetime.combine(load_day, time(12), tzinfo=UTC))
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    auditor = factories.bearer(factories.token(client, "demo-auditor", "demo-auditor-secret"))
    missed = client.get("/v1/audit/missed-services", headers=auditor).json
    assert missed["as_of"] == load_day.isoformat()
    assert [(row["fse_name"], row["device_tag"], row["status"]) for row in missed["items"]] == [
        ("Golden Wok", "GI-1", "missed")
    ]
    advice = client.get("/v1/audit/frequency-recommendations", headers=auditor).json
    assert [(row["fse_name"], row["change"], row["recommended_frequency_days"]) for row in advice["items"]] == [
        ("Golden Wok", "shorten", 30),
        ("Mesa Grill", "lengthen", 120),
    ]
    counts = client.get("/v1/audit/findings", headers=auditor).json["counts"]
    assert counts == {"twenty_five_percent_exceeded": 5}
    # The site's receipts: the trap's last load weighed in lighter, and a load no manifest names;
    # the month has those two, and the year (the default), also the interceptor load the site has
    # no record of.
    month = client.get(
        "/v1/audit/disposal-reconciliation",
        headers=auditor,
        query_string={"from": (load_day - timedelta(days=30)).isoformat()},
    ).json["items"]
    assert [(row["code"], row["fse_name"]) for row in month] == [
        ("gallons_differ", "Golden Wok"),
        ("manifest_missing", None),
    ]
    year = client.get("/v1/audit/disposal-reconciliation", headers=auditor).json["items"]
    assert [row["code"] for row in year] == ["receipt_missing", "gallons_differ", "manifest_missing"]
    # The permit, the hauler's licence and registration and the site are in force on the day:
    # Mesa Grill's service the day before, filed as the documentation shows, raises nothing.
    from tests.spec import json_bodies, load_spec

    filing = dict(json_bodies(load_spec()))["POST /v1/manifests"]["example"]
    day = (load_day - timedelta(days=1)).isoformat()
    for key in ("service_started_at", "service_completed_at"):
        filing[key] = day + filing[key][10:]
    filing["disposal"] = {**filing["disposal"], "delivered_at": day + filing["disposal"]["delivered_at"][10:]}
    hauler = factories.bearer(factories.token(client, "demo-hauler", "demo-hauler-secret"))
    filed = client.post("/v1/manifests", headers=hauler, json=filing)
    assert filed.status_code == 201 and filed.json["findings"] == [], filed.json


def test_openapi_and_docs_are_served(client):
    spec = client.get("/openapi.yaml")
    assert spec.status_code == 200 and spec.mimetype == "application/yaml"
    assert b"openapi: 3.1" in spec.data
    docs = client.get("/docs/")
    assert docs.status_code == 200 and b"swagger-ui" in docs.data
    assert b"//cdn" not in docs.data and b"unpkg" not in docs.data
    assert client.get("/docs/swagger-ui-bundle.js").status_code == 200


def test_config_refuses_tokens_that_never_expire(make_app):

    from api.config import ConfigError

    with pytest.raises(ConfigError):
        make_app(TOKEN_TTL_SECONDS=0)


def test_clients_cli_round_trip(app, session):
    runner = app.test_cli_runner()
    factories.jurisdiction(session, "victorville")
    created = runner.invoke(args=["clients", "create", "--role", "auditor", "--subject", "victorville"])
    assert created.exit_code == 0, created.output
    made = json.loads(created.output)
    assert made["client_secret"] and made["scope"] == "audit:read records:read manifests:read corrections:review"
    listed = json.loads(runner.invoke(args=["clients", "list"]).output)
    assert [c["client_id"] for c in listed] == [made["client_id"]]
    assert "client_secret" not in listed[0]
    refused = runner.invoke(
        args=["clients", "create", "--role", "auditor", "--subject", "victorville", "--scope", "manifests:write"]
    )
    assert refused.exit_code != 0 and "cannot hold manifests:write" in refused.output


def test_reading_requests_run_without_a_transaction(app, live_server):
    """storage/db.py: a GET runs each statement on its own (no `BEGIN`, no `ROLLBACK`: two
    round trips spared); a POST still runs in a transaction. (On SQLite the driver opens no
    transaction for a read either way; on PostgreSQL the read fails without autocommit.)"""
    import requests
    from sqlalchemy import event

    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    engine = app.extensions["fogx.engine"]
    in_transaction = []

    def record(conn, _cursor, statement, _parameters, _context, _executemany):
        driver = conn.connection.driver_connection
        opened = driver.in_transaction if engine.dialect.name == "sqlite" else driver.info.transaction_status != 0
        in_transaction.append((statement.split()[0].upper(), opened))

    event.listen(engine, "after_cursor_execute", record)
    try:
        token = requests.post(
            f"{live_server}/oauth/token",
            data={"grant_type": "client_credentials"},
            auth=("demo-admin", "demo-admin-secret"),
            timeout=10,
        ).json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        in_transaction.clear()
        listed = requests.get(f"{live_server}/v1/fses", headers=headers, timeout=10)
        assert listed.status_code == 200 and listed.json()["items"]
        fse = requests.get(f"{live_server}/v1/fses/{listed.json()['items'][0]['id']}", headers=headers, timeout=10)
        assert fse.status_code == 200
        assert in_transaction and not any(opened for _, opened in in_transaction), in_transaction
        in_transaction.clear()
        created = requests.post(
            f"{live_server}/v1/fses",
            headers=headers,
            timeout=10,
            json={
                "name": "Casa Lupita",
                "address": "15080 Palmdale Rd, Victorville, CA 92392",
                "apn": "3093-381-14",
                "jurisdiction": "victorville",
                "operator_name": "Lupe Ortega",
                "operator_email": "lupe@example.com",
            },
        )
        assert created.status_code == 201, created.text
        assert ("INSERT", True) in in_transaction
    finally:
        event.remove(engine, "after_cursor_execute", record)


def test_a_reading_session_refuses_to_write(app):
    from storage.db import db
    from storage.models import Jurisdiction

    with app.test_request_context("/v1/fses", method="GET"):
        db.session.add(Jurisdiction(code="gotham", name="Gotham"))
        with pytest.raises(RuntimeError, match="only reads"):
            db.session.flush()
        db.session.rollback()


def test_every_setting_is_listed_in_the_readme():
    from api.config import ROOT, SETTINGS

    readme = (ROOT / "README.md").read_text()
    assert [name for name in SETTINGS if f"| `{name}` |" not in readme] == []
