"""The README's walkthrough, run as written against the demo: the first thing a new user tries."""

import re
import subprocess

import requests
from sqlalchemy import update

from api.config import ROOT
from storage.people import OAuthApp
from tests.browser import by_css, chromium, message, rows, text_of, waiting_for  # noqa: F401
from tests.conftest import serve


def walkthrough() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## A walk through the demo") :]
    return re.search(r"```\n(.*?)```", section, re.S).group(1)


def test_the_walkthrough_runs_as_written_against_the_demo(app, tmp_path):
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    with serve(app) as base:
        script = walkthrough().replace("http://127.0.0.1:8000", base)
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # One error, shown on purpose (no token); every other answer is the one described.
    assert out.count("/problems/") == 1 and '/problems/unauthorized"' in out
    assert '"manifest_number":"IGS-1001"' in out and '"status":"accepted"' in out
    assert (tmp_path / "binder.pdf").read_bytes().startswith(b"%PDF")
    assert "Golden Wok" in out and '"change":"shorten"' in out
    assert '"code":"gallons_differ"' in out and '"ticket_number":"HDR-20001"' in out
    assert '"kind":"manifest.filed"' in out and '"active": true' in out


def portal_steps() -> dict:
    """What the walkthrough tells a person to do in the portal, and what it says they see."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## A walk through the demo") :]
    prose = " ".join(section[section.index("First as a person") : section.index("```")].split())
    return {
        "address": re.search(r"open <(http://[^>]+)>", prose).group(1),
        "button": re.search(r"choose \*\*([^*]+)\*\*", prose).group(1),
        "email": re.search(r"give `([^`]+@[^`]+)`", prose).group(1),
        "password": re.search(r"the password `([^`]+)`", prose).group(1),
        "who": re.search(r"as \*\*([^*]+)\*\*", prose).group(1),
        "seen": re.search(r"missed services, (.+?) among them", prose).group(1),
        "sign_out": re.search(r"\*\*(Sign out)\*\*", prose).group(1),
    }


def test_the_walkthrough_signs_in_as_a_demo_person_in_the_portal(app, chromium, session):
    steps = portal_steps()
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    with serve(app) as base:
        session.execute(
            update(OAuthApp).where(OAuthApp.client_id == "fogx-portal").values(redirect_uris=[f"{base}/portal/"])
        )
        session.commit()
        chromium.get(steps["address"].replace("http://127.0.0.1:8000", base))
        chromium.execute_script("sessionStorage.clear()")
        try:
            [choice] = [b for b in by_css(chromium, "button") if b.text == steps["button"]]
            choice.click()
            waiting_for(chromium, lambda b: by_css(b, "#email"), "the sign-in page")
            assert chromium.current_url.startswith(f"{base}/oauth/authorize?")
            by_css(chromium, "#email")[0].send_keys(steps["email"])
            by_css(chromium, "#password")[0].send_keys(steps["password"])
            by_css(chromium, "#submit")[0].click()
            waiting_for(chromium, lambda b: rows(b), "the missed services")
            assert text_of(chromium, "#who-name") == steps["who"]
            assert any(steps["seen"] in " ".join(row) for row in rows(chromium))
            token = chromium.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session')).token")
            [sign_out] = [b for b in by_css(chromium, "button") if b.text == steps["sign_out"]]
            sign_out.click()
            waiting_for(chromium, lambda b: message(b) == "You are signed out.", "the sign-out")
            waiting_for(
                chromium,
                lambda _: (
                    requests.get(
                        f"{base}/v1/audit/findings", timeout=10, headers={"Authorization": f"Bearer {token}"}
                    ).status_code
                    == 401
                ),
                "the tokens revoked",
            )
        finally:
            chromium.get("about:blank")
