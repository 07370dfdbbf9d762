"""The OAuth2 authorization server, as real clients and a careful attacker would meet it."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from authlib.integrations.requests_client import OAuth2Session
from oauthlib.oauth2 import BackendApplicationClient
from requests_oauthlib import OAuth2Session as OAuthlibSession
from sqlalchemy import inspect, text

from domain.clock import now
from storage.models import Base
from tests import factories


@pytest.fixture
def auditor(session):
    factories.jurisdiction(session, "victorville")
    return factories.oauth_client(session, role="auditor", subject=["victorville"])


@pytest.fixture
def other_auditor(session):
    factories.jurisdiction(session, "tracy")
    return factories.oauth_client(session, role="auditor", subject=["tracy"])


def token_response(client, credentials, **form):
    return client.post("/oauth/token", data={"grant_type": "client_credentials", **form}, auth=credentials)


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_authlib_client_obtains_a_token_and_calls_the_api(live_server, auditor, method):
    client_id, secret = auditor
    oauth = OAuth2Session(client_id, secret, token_endpoint_auth_method=method)
    token = oauth.fetch_token(f"{live_server}/oauth/token", grant_type="client_credentials")
    assert token["token_type"] == "Bearer"
    assert token["scope"] == "audit:read records:read manifests:read corrections:review"
    response = oauth.get(f"{live_server}/v1/jurisdictions")
    assert response.status_code == 200
    assert [j["code"] for j in response.json()["items"]] == ["victorville"]


def test_requests_oauthlib_backend_client_obtains_a_token(live_server, auditor, monkeypatch):
    monkeypatch.setenv("OAUTHLIB_INSECURE_TRANSPORT", "1")  # oauthlib's own check; loopback only
    client_id, secret = auditor
    oauth = OAuthlibSession(client=BackendApplicationClient(client_id=client_id))
    token = oauth.fetch_token(
        f"{live_server}/oauth/token", client_id=client_id, client_secret=secret, include_client_id=True
    )
    assert token["access_token"]
    assert oauth.get(f"{live_server}/v1/jurisdictions/victorville").status_code == 200


def test_token_response_names_scope_and_lifetime_and_no_refresh_token(make_app, session):
    app = make_app(TOKEN_TTL_SECONDS=600)
    from tests.conftest import https_client

    client = https_client(app)
    with app.app_context():
        from storage.db import db

        factories.jurisdiction(db.session, "victorville")
        credentials = factories.oauth_client(db.session, role="admin", subject=["victorville"])
    response = token_response(client, credentials, scope="audit:read")
    assert response.status_code == 200
    body = response.json
    assert body["scope"] == "audit:read"
    assert body["expires_in"] == 600
    assert "refresh_token" not in body
    assert response.headers["Cache-Control"] == "no-store"


def test_scope_the_client_does_not_hold_is_invalid_scope(client, auditor):
    response = token_response(client, auditor, scope="audit:read registry:write")
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    assert response.json["error"] == "invalid_scope"
    assert "registry:write" in response.json["detail"]


@pytest.mark.parametrize("scope", ["nonsense", "manifests:write"])
def test_unknown_or_foreign_scope_is_refused(client, auditor, scope):
    assert token_response(client, auditor, scope=scope).json["error"] == "invalid_scope"


@pytest.mark.parametrize("scope", ["\u00c5\u0094", "audit:read caf\u00e9", 'say "please"', "back\\slash"])
def test_a_scope_outside_printable_ascii_is_refused_not_a_500(client, auditor, scope):
    """RFC 6749 section 3.3 allows a scope only printable ASCII without quotes or backslashes,
    and an error's description no more: a scope asked outside it is refused, not echoed."""
    response = token_response(client, auditor, scope=scope)
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    assert response.json["error"] == "invalid_scope"
    assert response.json["detail"].isascii()


def test_wrong_secret_and_unknown_client_are_invalid_client(client, auditor):
    client_id, _ = auditor
    for credentials in ((client_id, "wrong"), ("nobody", "nothing")):
        response = token_response(client, credentials)
        assert response.status_code == 401
        assert response.json["error"] == "invalid_client"
        assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize("path", ["/oauth/token", "/oauth/revoke", "/oauth/introspect"])
@pytest.mark.parametrize("credentials", [("known", "wrong"), ("nobody", "nothing")])
def test_failed_client_authentication_is_401_however_the_credentials_came(client, auditor, path, credentials):
    client_id, secret = credentials
    client_id = auditor[0] if client_id == "known" else client_id
    access = factories.token(client, *auditor)
    form = {"grant_type": "client_credentials", "token": access}
    for response in (
        client.post(path, data=form, auth=(client_id, secret)),
        client.post(path, data={**form, "client_id": client_id, "client_secret": secret}),
    ):
        assert response.status_code == 401, response.json
        assert response.json["error"] == "invalid_client"
        assert response.mimetype == "application/problem+json"
        assert response.headers["WWW-Authenticate"].startswith("Basic")
    assert client.get("/v1/jurisdictions", headers=factories.bearer(access)).status_code == 200


def test_unsupported_grant_type(client, auditor):
    response = client.post("/oauth/token", data={"grant_type": "password"}, auth=auditor)
    assert response.status_code == 400
    assert response.json["error"] == "unsupported_grant_type"


def test_plain_http_is_refused_for_oauth(app, auditor):
    response = app.test_client().post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=auditor,
        environ_base={"REMOTE_ADDR": "192.0.2.44"},
    )
    assert response.status_code == 400
    assert response.json["error"] == "insecure_transport"


def test_protected_route_without_token_is_401_with_bearer_challenge(client, auditor):
    response = client.get("/v1/jurisdictions")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith('Bearer realm="fogx"')
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize("header", ["Bearer forged-token-value", "Bearer ", "Basic Zm9vOmJhcg==", "Bearer a b c"])
def test_forged_or_malformed_token_is_401(client, auditor, header):
    response = client.get("/v1/jurisdictions", headers={"Authorization": header})
    assert response.status_code == 401
    assert "Bearer" in response.headers["WWW-Authenticate"]


def test_expired_token_is_refused_on_the_next_call(client, auditor, frozen_clock):
    issued_at = frozen_clock(datetime(2026, 6, 1, 12, 0, tzinfo=UTC))
    access = factories.token(client, *auditor)
    assert client.get("/v1/jurisdictions", headers=factories.bearer(access)).status_code == 200
    frozen_clock(issued_at + timedelta(seconds=3599))
    assert client.get("/v1/jurisdictions", headers=factories.bearer(access)).status_code == 200
    frozen_clock(issued_at + timedelta(seconds=3600))
    response = client.get("/v1/jurisdictions", headers=factories.bearer(access))
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


def test_revoked_token_is_refused_and_revoke_is_idempotent(client, auditor):
    access = factories.token(client, *auditor)
    assert client.post("/oauth/revoke", data={"token": access}, auth=auditor).status_code == 200
    assert client.post("/oauth/revoke", data={"token": access}, auth=auditor).status_code == 200
    assert client.get("/v1/jurisdictions", headers=factories.bearer(access)).status_code == 401


def test_revoking_an_unknown_token_answers_200(client, auditor):
    response = client.post("/oauth/revoke", data={"token": "never-issued"}, auth=auditor)
    assert response.status_code == 200 and response.json == {}


def test_a_client_cannot_revoke_another_clients_token(client, auditor, other_auditor):
    victim = factories.token(client, *auditor)
    response = client.post("/oauth/revoke", data={"token": victim}, auth=other_auditor)
    assert response.status_code == 200
    assert client.get("/v1/jurisdictions", headers=factories.bearer(victim)).status_code == 200


@pytest.mark.parametrize("endpoint", ["/oauth/revoke", "/oauth/introspect"])
def test_a_token_type_hint_of_a_kind_fogx_does_not_take_is_a_400(client, auditor, endpoint):
    """RFC 7009 section 2.2.1: `unsupported_token_type` is an error response of RFC 6749
    section 5.2, a 400, not a failed client authentication. (Revocation takes access and
    refresh tokens; introspection access tokens.)"""
    token = token_response(client, auditor).json["access_token"]
    hint = "id_token" if endpoint == "/oauth/revoke" else "refresh_token"
    response = client.post(endpoint, data={"token": token, "token_type_hint": hint}, auth=auditor)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    assert response.json["error"] == "unsupported_token_type"
    assert "WWW-Authenticate" not in response.headers


def test_revoke_requires_client_authentication(client, auditor):
    access = factories.token(client, *auditor)
    response = client.post("/oauth/revoke", data={"token": access})
    assert response.status_code == 401
    assert client.get("/v1/jurisdictions", headers=factories.bearer(access)).status_code == 200


def test_introspection(client, auditor, other_auditor, frozen_clock):
    access = factories.token(client, *auditor)
    active = client.post("/oauth/introspect", data={"token": access}, auth=auditor)
    assert active.status_code == 200
    body = active.json
    assert body["active"] is True
    assert body["client_id"] == auditor[0]
    assert body["scope"] == "audit:read records:read manifests:read corrections:review"
    assert body["exp"] - body["iat"] == 3600
    assert body["role"] == "auditor"

    unauthenticated = client.post("/oauth/introspect", data={"token": access})
    assert unauthenticated.status_code == 401

    def introspect(token, credentials=auditor):
        return client.post("/oauth/introspect", data={"token": token}, auth=credentials).json

    assert introspect("unknown") == {"active": False}
    assert introspect(access, other_auditor) == {"active": False}
    frozen_clock(now() + timedelta(hours=2))
    assert introspect(access) == {"active": False}


def test_introspecting_a_revoked_token_says_inactive(client, auditor):
    access = factories.token(client, *auditor)
    client.post("/oauth/revoke", data={"token": access}, auth=auditor)
    assert client.post("/oauth/introspect", data={"token": access}, auth=auditor).json == {"active": False}


def test_metadata_rfc8414(client):
    body = client.get("/.well-known/oauth-authorization-server").json
    assert body["issuer"] == "https://fogx.test"
    assert body["token_endpoint"] == "https://fogx.test/oauth/token"
    assert body["revocation_endpoint"] == "https://fogx.test/oauth/revoke"
    assert body["introspection_endpoint"] == "https://fogx.test/oauth/introspect"
    assert body["authorization_endpoint"] == "https://fogx.test/oauth/authorize"
    # Programs authenticate as themselves; people sign in through apps (authorization code
    # with PKCE S256, public apps with `none`).
    assert body["grant_types_supported"] == ["client_credentials", "authorization_code", "refresh_token"]
    assert body["code_challenge_methods_supported"] == ["S256"]
    assert set(body["token_endpoint_auth_methods_supported"]) == {"client_secret_basic", "client_secret_post", "none"}
    assert set(body["scopes_supported"]) == {
        "manifests:write",
        "manifests:read",
        "records:read",
        "audit:read",
        "registry:write",
        "receipts:write",
        "corrections:review",
        "maintenance:write",
    }


def test_no_secret_or_token_is_stored_in_plain_text(app, client, session, auditor):
    client_id, secret = auditor
    tokens = [factories.token(client, client_id, secret) for _ in range(3)]
    rotated = json.loads(app.test_cli_runner().invoke(args=["clients", "rotate-secret", client_id]).output)
    tokens.append(factories.token(client, client_id, rotated["client_secret"]))
    secrets = [secret, rotated["client_secret"], *tokens]

    engine = app.extensions["fogx.engine"]
    dump = []
    with engine.connect() as connection:
        for table in inspect(engine).get_table_names():
            for row in connection.execute(text(f"SELECT * FROM {table}")):
                dump.append(" ".join(str(value) for value in row))
    everything = "\n".join(dump)
    assert client_id in everything  # the dump really holds the client rows
    for value in secrets:
        assert value not in everything
    assert set(Base.metadata.tables) <= set(inspect(engine).get_table_names())


def test_rotated_secret_replaces_the_old_one_and_ends_its_tokens(app, client, auditor):
    client_id, old_secret = auditor
    issued = factories.token(client, client_id, old_secret)
    assert client.get("/v1/jurisdictions", headers=factories.bearer(issued)).status_code == 200
    result = app.test_cli_runner().invoke(args=["clients", "rotate-secret", client_id])
    new_secret = json.loads(result.output)["client_secret"]
    assert token_response(client, (client_id, old_secret)).status_code == 401
    assert client.get("/v1/jurisdictions", headers=factories.bearer(issued)).status_code == 401
    fresh = token_response(client, (client_id, new_secret))
    assert fresh.status_code == 200
    assert client.get("/v1/jurisdictions", headers=factories.bearer(fresh.json["access_token"])).status_code == 200


def test_a_nul_in_the_client_id_is_an_invalid_client(client, auditor):
    """However it is sent: no client has one, and it never reaches the database."""
    for attempt in (
        client.post("/oauth/token", data={"grant_type": "client_credentials"}, auth=(f"{auditor[0]}\x00", auditor[1])),
        client.post(
            "/oauth/token", data={"grant_type": "client_credentials", "client_id": "a\x00b", "client_secret": "x"}
        ),
        client.post("/oauth/introspect", data={"token": "t"}, auth=("\x00", "x")),
        client.post("/oauth/revoke", data={"token": "t", "client_id": "\x00"}),
    ):
        assert attempt.status_code == 401, attempt.get_data(as_text=True)
        assert attempt.mimetype == "application/problem+json" and attempt.json["error"] == "invalid_client"


def test_the_holder_of_a_token_may_revoke_it_with_the_client_id_alone(client, auditor, other_auditor):
    mine, theirs = factories.token(client, *auditor), factories.token(client, *other_auditor)
    # Another client's token, named with this client's id: left alone, answered like an unknown one.
    assert client.post("/oauth/revoke", data={"token": theirs, "client_id": auditor[0]}).status_code == 200
    assert client.get("/v1/jurisdictions", headers=factories.bearer(theirs)).status_code == 200
    assert client.post("/oauth/revoke", data={"token": mine, "client_id": auditor[0]}).status_code == 200
    assert client.get("/v1/jurisdictions", headers=factories.bearer(mine)).status_code == 401
    # The secret, when sent, must still be the right one; and introspecting still needs it.
    wrong = client.post("/oauth/revoke", data={"token": theirs, "client_id": other_auditor[0], "client_secret": "x"})
    assert wrong.status_code == 401
    assert client.post("/oauth/introspect", data={"token": theirs, "client_id": other_auditor[0]}).status_code == 401


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "localhost:8000", "127.0.0.1:8000"])
def test_plain_http_is_refused_from_the_network_whatever_host_it_names(app, auditor, host):
    plain = app.test_client()
    outside = plain.post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=auditor,
        base_url=f"http://{host}",
        environ_base={"REMOTE_ADDR": "203.0.113.9"},
    )
    assert outside.status_code == 400 and outside.json["error"] == "insecure_transport"
    # An uncounted proxy on this host forwarding someone's request is no local client either.
    forwarded = plain.post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=auditor,
        base_url=f"http://{host}",
        headers={"X-Forwarded-For": "203.0.113.9"},
    )
    assert forwarded.status_code == 400 and forwarded.json["error"] == "insecure_transport"
    # A client on this host itself may speak plain HTTP, whichever loopback name it uses.
    local = plain.post(
        "/oauth/token", data={"grant_type": "client_credentials"}, auth=auditor, base_url=f"http://{host}"
    )
    assert local.status_code == 200
    over_tls = plain.post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=auditor,
        base_url="https://fogx.example.org",
        environ_base={"REMOTE_ADDR": "203.0.113.9"},
    )
    assert over_tls.status_code == 200


def test_behind_a_counted_proxy_the_forwarded_scheme_and_address_decide(make_app, session):
    from storage.db import db

    app = make_app(TRUSTED_PROXIES=1)
    with app.app_context():
        factories.jurisdiction(db.session, "victorville")
        credentials = factories.oauth_client(db.session, role="auditor", subject=["victorville"])
    plain = app.test_client()
    forwarded_http = plain.post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=credentials,
        base_url="http://localhost",
        headers={"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "http"},
    )
    assert forwarded_http.status_code == 400
    forwarded_https = plain.post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=credentials,
        base_url="http://localhost",
        headers={"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"},
    )
    assert forwarded_https.status_code == 200


def test_revoked_client_loses_its_tokens_and_cannot_get_new_ones(app, client, auditor):
    access = factories.token(client, *auditor)
    result = app.test_cli_runner().invoke(args=["clients", "revoke", auditor[0]])
    assert result.exit_code == 0
    assert client.get("/v1/jurisdictions", headers=factories.bearer(access)).status_code == 401
    assert token_response(client, auditor).status_code == 401


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_failed_authentication_is_rate_limited_per_client(make_app, method):
    """Guesses count however the secret is sent (a form's used to answer 400 and went uncounted).
    A client id guessed at too often slows down the addresses that guessed, not the others."""
    from tests.conftest import https_client

    app = make_app(AUTH_FAILURE_LIMIT=3)
    client = https_client(app)
    with app.app_context():
        from storage.db import db

        factories.jurisdiction(db.session, "victorville")
        client_id, secret = factories.oauth_client(db.session, role="auditor", subject=["victorville"])

    def attempt(guess, address):
        environ = {"REMOTE_ADDR": address}
        if method == "client_secret_basic":
            return client.post(
                "/oauth/token", data={"grant_type": "client_credentials"}, auth=(client_id, guess), environ_base=environ
            )
        return client.post(
            "/oauth/token",
            data={"grant_type": "client_credentials", "client_id": client_id, "client_secret": guess},
            environ_base=environ,
        )

    guessers = ["198.51.100.1", "198.51.100.2", "198.51.100.3"]  # each under its own limit
    for address in guessers:
        assert attempt("guess", address).status_code == 401
    blocked = attempt(secret, guessers[0])
    assert blocked.status_code == 429
    assert blocked.mimetype == "application/problem+json"
    assert 0 < int(blocked.headers["Retry-After"]) <= 300
    assert attempt(secret, "203.0.113.50").status_code == 200  # an address that never failed
    assert attempt("guess", "203.0.113.51").status_code == 401
    assert attempt(secret, "203.0.113.51").status_code == 429  # one guess, then it waits too


def test_a_stranger_cannot_lock_a_client_out(make_app):
    """Fifty wrong secrets for a hauler's client id from one address: that address waits, and
    the hauler, with the right secret from its own address, still gets its token."""
    from tests.conftest import https_client

    app = make_app()  # AUTH_FAILURE_LIMIT 10 in 300 seconds
    client = https_client(app)
    with app.app_context():
        from storage.db import db

        hauler = factories.hauler(db.session)
        client_id, secret = factories.oauth_client(db.session, role="hauler", subject=[hauler.id])
    stranger = {"REMOTE_ADDR": "198.51.100.66"}
    statuses = [
        client.post(
            "/oauth/token", data={"grant_type": "client_credentials"}, auth=(client_id, "guess"), environ_base=stranger
        ).status_code
        for _ in range(50)
    ]
    assert statuses == [401] * 10 + [429] * 40
    limited = client.post(
        "/oauth/token", data={"grant_type": "client_credentials"}, auth=(client_id, secret), environ_base=stranger
    )
    assert limited.status_code == 429 and limited.mimetype == "application/problem+json"
    assert 0 < int(limited.headers["Retry-After"]) <= 300
    own = client.post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=(client_id, secret),
        environ_base={"REMOTE_ADDR": "203.0.113.10"},
    )
    assert own.status_code == 200 and own.json["access_token"]


def test_failed_authentication_is_rate_limited_per_address(make_app):
    from tests.conftest import https_client

    app = make_app(AUTH_FAILURE_LIMIT=3)
    client = https_client(app)
    for n in range(3):
        assert token_response(client, (f"guess-{n}", "guess")).status_code == 401
    blocked = token_response(client, ("another", "guess"))
    assert blocked.status_code == 429
    other_address = client.post(
        "/oauth/token",
        data={"grant_type": "client_credentials"},
        auth=("another", "guess"),
        environ_base={"REMOTE_ADDR": "198.51.100.7"},
    )
    assert other_address.status_code == 401


def test_successful_authentications_are_not_limited(make_app):
    from tests.conftest import https_client

    app = make_app(AUTH_FAILURE_LIMIT=2)
    client = https_client(app)
    with app.app_context():
        from storage.db import db

        factories.jurisdiction(db.session, "victorville")
        credentials = factories.oauth_client(db.session, role="auditor", subject=["victorville"])
    for _ in range(5):
        assert token_response(client, credentials).status_code == 200


def test_a_rate_limit_store_that_does_not_answer_is_a_503(make_app):
    """Redis down: nothing is done unlimited, and the caller is told to retry."""
    from tests.conftest import https_client

    client = https_client(make_app(REDIS_URL="redis://127.0.0.1:1/0"))
    response = client.post("/oauth/token", data={"grant_type": "client_credentials"}, auth=("someone", "guess"))
    assert response.status_code == 503 and int(response.headers["Retry-After"]) > 0
    assert response.mimetype == "application/problem+json"
