"""`PUBLIC_BASE_URL` (or, alone, `PORT`) reaches every URL fogx prints: the OAuth and OpenID
metadata, the issuer, the served openapi.yaml's servers, links in mail, problem types."""

import email
import email.policy
from pathlib import Path

import yaml

from api.config import load_config
from tests import factories
from tests import people_factories as pf

BASE = "http://example.test:9000"


def _urls_of(app, session):
    client = app.test_client()
    https = {"base_url": "https://localhost"}
    oauth = client.get("/.well-known/oauth-authorization-server", **https).json
    oidc = client.get("/.well-known/openid-configuration", **https).json
    spec = yaml.safe_load(client.get("/openapi.yaml").get_data(as_text=True))
    problem = client.get("/v1/jurisdictions", **https).json["type"]
    pf.person(
        session,
        email="rosa@r.example",
        organisation="city",
        role="auditor",
        jurisdiction_id=factories.jurisdiction(session).id,
    )
    _, hidden = pf.form_of(client.get("/signin/reset", **https).get_data(as_text=True))
    # Read whole and closed, as a server does once it has sent it: the mail goes then.
    assert (
        client.post("/signin/reset", data={**hidden, "email": "rosa@r.example"}, buffered=True, **https).status_code
        == 200
    )
    [mail] = [
        email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
        for p in Path(app.config["MAIL_DIR"]).glob("*.eml")
    ]
    return oauth, oidc, spec, problem, mail.get_body(("plain",)).get_content()


def test_the_public_base_url_is_in_every_url_fogx_prints(make_app, session):
    app = make_app(PUBLIC_BASE_URL=BASE)
    oauth, oidc, spec, problem, mail = _urls_of(app, session)
    assert oauth["issuer"] == oidc["issuer"] == BASE
    for endpoint in ("authorization_endpoint", "token_endpoint", "revocation_endpoint", "introspection_endpoint"):
        assert oauth[endpoint].startswith(f"{BASE}/oauth/") and oidc[endpoint] == oauth[endpoint]
    assert oidc["jwks_uri"] == f"{BASE}/oauth/jwks" and oidc["userinfo_endpoint"] == f"{BASE}/oauth/userinfo"
    assert spec["servers"][0]["url"] == BASE
    assert problem == f"{BASE}/problems/unauthorized"
    assert f"{BASE}/signin/reset/" in mail
    assert "127.0.0.1:8000" not in str((oauth, oidc, spec, problem, mail))


def test_port_alone_gives_the_loopback_address_on_that_port(make_app, session, monkeypatch):
    monkeypatch.setenv("PORT", "9000")
    monkeypatch.delenv("PUBLIC_BASE_URL", raising=False)
    monkeypatch.delenv("OAUTH_ISSUER", raising=False)
    app = make_app(PUBLIC_BASE_URL="")
    oauth, oidc, spec, problem, mail = _urls_of(app, session)
    here = "http://127.0.0.1:9000"
    assert oauth["issuer"] == oidc["issuer"] == here and oauth["token_endpoint"] == f"{here}/oauth/token"
    assert spec["servers"][0]["url"] == here
    assert problem == f"{here}/problems/unauthorized" and f"{here}/signin/reset/" in mail


def test_the_defaults_and_a_malformed_base_url():
    config = load_config(environ={})
    assert config["PUBLIC_BASE_URL"] == config["OAUTH_ISSUER"] == "http://127.0.0.1:8000"
    assert (
        load_config(environ={"PUBLIC_BASE_URL": "https://fogx.example.org/"})["PUBLIC_BASE_URL"]
        == "https://fogx.example.org"
    )
    try:
        load_config(environ={"PUBLIC_BASE_URL": "fogx.example.org"})
    except ValueError as error:
        assert "PUBLIC_BASE_URL" in str(error)
    else:
        raise AssertionError("a base URL without its scheme was taken")
