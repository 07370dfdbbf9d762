"""Each problem `type` fogx can put in a problem+json body is a page it serves, saying what
went wrong and how to fix it: HTML for a person, JSON for a program that asks for it."""

import importlib
import pkgutil
from urllib.parse import urlsplit

import authlib.oauth2
import authlib.oidc
import pytest
from authlib.oauth2.base import OAuth2Error

from api import errors, serving


def _oauth_codes():
    """Every OAuth error code Authlib can raise through the authorization server."""
    for package in (authlib.oauth2, authlib.oidc):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if module.name.endswith(".errors"):
                importlib.import_module(module.name)
    codes, kinds = set(), [OAuth2Error]
    while kinds:
        kind = kinds.pop()
        kinds.extend(kind.__subclasses__())
        if getattr(kind, "error", None):
            codes.add(kind.error)
    return codes


def emitted_slugs():
    """The slugs api/errors.py can name: its table, Werkzeug's statuses, the catch-alls, each
    OAuth error code, and gunicorn's refusals (api/serving.py)."""
    slugs = {slug for _status, slug, _title in errors.PROBLEMS.values()}
    slugs |= {slug for _status, slug, _title in serving.REFUSALS.values()}
    slugs |= {slug for slug, _title in errors._HTTP_SLUGS.values()}
    slugs |= {"http-error", "internal-error"}
    slugs |= {f"oauth-{code.replace('_', '-')}" for code in _oauth_codes()}
    return sorted(slugs)


def test_the_oauth_codes_are_found():
    assert {"invalid_client", "invalid_grant", "insecure_transport", "unsupported_token_type"} <= _oauth_codes()


@pytest.mark.parametrize("slug", emitted_slugs())
def test_every_problem_type_is_a_page_saying_what_went_wrong_and_how_to_fix_it(app, client, slug):
    with app.test_request_context():
        uri = errors.type_uri(slug)
    assert uri == f"https://fogx.test/problems/{slug}"
    page = client.get(urlsplit(uri).path)
    assert page.status_code == 200 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert "What went wrong" in text and "How to fix it" in text and uri in text
    described = client.get(urlsplit(uri).path, headers={"Accept": "application/json"})
    assert described.status_code == 200 and described.mimetype == "application/json"
    body = described.json
    assert body["type"] == uri and body["title"] and body["what_went_wrong"] and body["how_to_fix"]
    assert body["title"] in text


def test_a_problem_answered_links_to_its_page(client):
    refused = client.get("/v1/jurisdictions")
    assert refused.status_code == 401 and refused.mimetype == "application/problem+json"
    page = client.get(urlsplit(refused.json["type"]).path, headers={"Accept": "application/json"})
    assert page.status_code == 200 and page.json["type"] == refused.json["type"]
    assert "Authorization: Bearer" in page.json["how_to_fix"]


def test_the_index_lists_every_type_and_an_unknown_one_is_not_found(client):
    listed = client.get("/problems", headers={"Accept": "application/json"}).json["items"]
    assert {entry["type"].rsplit("/", 1)[1] for entry in listed} >= set(emitted_slugs())
    assert "Problem types" in client.get("/problems").get_data(as_text=True)
    missing = client.get("/problems/no-such-problem")
    assert missing.status_code == 404 and missing.json["type"] == "https://fogx.test/problems/not-found"
