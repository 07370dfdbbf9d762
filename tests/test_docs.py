"""The rendered API documentation (`/docs/`): only its own files run, nothing frames it, and it
still renders every route under that policy (Chromium)."""

import time

import pytest

from tests.browser import WAIT, chromium  # noqa: F401  the one browser of the run
from tests.conftest import serve
from tests.spec import load_spec


@pytest.mark.parametrize(
    "path", ["/docs/", "/docs/index.html", "/docs/fogx-docs.js", "/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css"]
)
def test_the_docs_carry_a_policy_and_refuse_framing(client, path):
    response = client.get(path)
    assert response.status_code == 200
    policy = dict(part.strip().split(" ", 1) for part in response.headers["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == "'none'" and policy["script-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'" and policy["base-uri"] == "'none'"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_the_page_has_no_inline_script(client):
    page = client.get("/docs/").get_data(as_text=True)
    assert page.count("<script") == page.count('<script src="/docs/') == 3


def test_swagger_ui_renders_every_route_under_the_policy(app, chromium):
    watch = chromium.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument",
        {
            "source": (
                "window.violations = [];"
                "document.addEventListener('securitypolicyviolation', (e) => window.violations.push(e.violatedDirective));"
            )
        },
    )
    try:
        with serve(app) as base:
            chromium.get(f"{base}/docs/")
            deadline, shown = time.monotonic() + WAIT, 0
            while time.monotonic() < deadline and not shown:
                shown = chromium.execute_script("return document.querySelectorAll('.opblock').length")
                time.sleep(0.1)
            spec = load_spec()
            # the routes and the webhook deliveries fogx makes, each a block of its own
            operations = sum(
                1
                for item in [*spec["paths"].values(), *spec.get("webhooks", {}).values()]
                for method in item
                if method in ("get", "put", "post", "delete", "patch")
            )
            assert shown == operations
            assert chromium.execute_script("return window.violations") == []
            chromium.get("about:blank")
    finally:
        chromium.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": watch["identifier"]})
