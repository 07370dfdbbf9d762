"""The admins' views in Chromium, at desktop size in English and on a phone (390 x 844) in
Spanish: a city's admin invites a person and changes a device's frequency from a date, the
notice Victorville 10.03.080(c) asks checked beside its field; a hauler's admin invites a
dispatcher, who accepts the mailed link and signs in. axe-core finds nothing on any view."""

import email
import email.policy
import re
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import requests
from selenium.webdriver.support.ui import Select
from sqlalchemy import select

from storage.people import Membership, Person
from tests.browser import (  # noqa: F401
    accessible,
    bearer,
    by_css,
    chromium,
    click,
    error_beside,
    fits,
    portal_app_at,
    rows,
    screen,
    set_value,
    sign_in,
    sign_out,
    speak,
    text_of,
    type_into,
    waiting_for,
)
from tests.conftest import serve

LA = ZoneInfo("America/Los_Angeles")
CITY_ADMIN, HAULER_ADMIN = "admin@demo.fogx.test", "hauler-admin@demo.fogx.test"
# Each size in a language of its own: the words are the person's, beside the field they concern.
WORDS = {
    "en": {
        "title": "City of Victorville: people and registry",
        "fill": "Fill this in.",
        "sent": "The invitation is on its way to rosa.diaz@victorville.example (auditor)",
        "sooner": "The change takes effect 5 days after the notice; the city asks for 30 (Victorville 10.03.080(c))",
        "changed": "GI-1 is pumped every 60 days from {day}.",
        "staff": "Your staff",
        "dispatcher_sent": "The invitation is on its way to new.dispatcher@inland.example (dispatcher)",
        "moved": "GI-1 moves to permit VV-FOG-0001-R.",
        "suspended": "VV-FOG-0001 is suspended from {day}.",
        "withdrawn": "The change of GI-1 from {day} is withdrawn.",
    },
    "es": {
        "title": "City of Victorville: personas y registro",
        "fill": "Complete este dato.",
        "sent": "La invitación va en camino a rosa.diaz@victorville.example (auditor)",
        "sooner": "El cambio rige 5 días después del aviso; la ciudad pide 30 (Victorville 10.03.080(c))",
        "changed": "GI-1 se bombea cada 60 días desde el {day}.",
        "staff": "Su personal",
        "dispatcher_sent": "La invitación va en camino a new.dispatcher@inland.example (despachador)",
        "moved": "GI-1 pasa al permiso VV-FOG-0001-R.",
        "suspended": "VV-FOG-0001 queda suspendido desde el {day}.",
        "withdrawn": "El cambio de GI-1 desde el {day} queda anulado.",
    },
}


@pytest.fixture(params=["desktop", "phone"])
def screen(request):
    return request.param


@pytest.fixture
def language(screen):
    return "es" if screen == "phone" else "en"


@pytest.fixture
def portal(app, chromium, screen):
    """The demo served over HTTP, the browser on a fresh portal page at the screen's size."""
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    if screen == "phone":
        chromium.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
        )
    with serve(app) as base:
        portal_app_at(app, base)
        chromium.get(f"{base}/portal/")
        chromium.execute_script("sessionStorage.clear(); localStorage.clear()")
        chromium.refresh()
        try:
            yield chromium, base
        finally:
            chromium.get("about:blank")
            chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def mails(app) -> list:
    folder = Path(app.config["MAIL_DIR"])
    return [email.message_from_bytes(p.read_bytes(), policy=email.policy.default) for p in sorted(folder.glob("*.eml"))]


def test_a_city_admin_invites_a_person_and_changes_a_devices_frequency_from_a_date(app, portal, screen, language):
    browser, base = portal
    words = WORDS[language]
    sign_in(browser, CITY_ADMIN)
    waiting_for(browser, lambda b: by_css(b, "#invite-submit") and rows(b, "#people"), "the city's people")
    speak(browser, language, words["title"])
    waiting_for(browser, lambda b: by_css(b, "#invite-submit") and rows(b, "#people"), "the city's people")
    assert text_of(browser, "#view h1") == words["title"]
    accessible(browser, "the city admin's people")
    fits(browser, screen, "the city admin's people")

    # Sent empty: the error stands beside the address, in the person's language.
    click(browser, "#invite-submit")
    waiting_for(browser, lambda b: error_beside(b, "invite", "email")[0], "the error beside the address")
    assert error_beside(browser, "invite", "email") == [words["fill"], "true", True]
    accessible(browser, "the invitation refused beside its field")
    type_into(browser, "#invite-email", "Rosa.Diaz@Victorville.example")
    Select(by_css(browser, "#invite-role")[0]).select_by_value("auditor")
    # The invitation is written in the admin's language unless the admin chooses another.
    assert Select(by_css(browser, "#invite-language")[0]).first_selected_option.get_attribute("value") == language
    click(browser, "#invite-submit")
    waiting_for(browser, lambda b: words["sent"] in text_of(b, "#view"), "the invitation sent")
    waiting_for(browser, lambda b: rows(b, "#invitations"), "the pending invitation")
    assert any("rosa.diaz@victorville.example" in row[0] for row in rows(browser, "#invitations"))
    # Through the API: the invitation exists, to the city, as an auditor, and its link was mailed.
    admin = bearer(base, "demo-admin")
    pending = requests.get(f"{base}/v1/invitations", headers=admin, timeout=10).json()["items"]
    [invited] = [i for i in pending if i["email"] == "rosa.diaz@victorville.example"]
    assert (invited["organisation"], invited["role"]) == ("city", "auditor")
    assert [(m["To"], m["Content-Language"]) for m in mails(app)] == [("rosa.diaz@victorville.example", language)]
    accessible(browser, "the city admin's people after an invitation")
    fits(browser, screen, "the city admin's people after an invitation")

    # Mesa Grill's interceptor: every 90 days now, every 60 from a day of the admin's choosing.
    [mesa] = requests.get(f"{base}/v1/fses", params={"q": "Mesa Grill"}, headers=admin, timeout=10).json()["items"]
    [device] = requests.get(f"{base}/v1/fses/{mesa['id']}/devices", headers=admin, timeout=10).json()["items"]
    click(browser, "#admin-tab-restaurants")
    click(browser, f"button[data-fse='{mesa['id']}']")
    click(browser, f"button[data-device='{device['id']}']")
    waiting_for(browser, lambda b: by_css(b, "#frequency-submit"), "the frequency form")
    accessible(browser, "the frequency form")
    fits(browser, screen, "the frequency form")
    today = datetime.now(LA).date()
    Select(by_css(browser, "#frequency-frequency_days")[0]).select_by_value("60")
    # Five days after today's notice, with no reason why sooner: refused beside that field.
    set_value(browser, "#frequency-effective_on", (today + timedelta(days=5)).isoformat())
    type_into(browser, "#frequency-reason", "Measured depths allow a longer interval.")
    click(browser, "#frequency-submit")
    waiting_for(browser, lambda b: error_beside(b, "frequency", "sooner_because")[0], "the notice period's error")
    said, invalid, beside = error_beside(browser, "frequency", "sooner_because")
    assert words["sooner"] in said and invalid == "true" and beside
    accessible(browser, "the frequency change refused beside its field")
    fits(browser, screen, "the frequency change refused beside its field")
    effective = today + timedelta(days=45)
    set_value(browser, "#frequency-effective_on", effective.isoformat())
    click(browser, "#frequency-submit")
    changed = words["changed"].format(day=effective.isoformat())
    waiting_for(browser, lambda b: changed in text_of(b, "#fse-done"), "the change recorded")
    # Through the API: the change is recorded with that date, the days before left as they were.
    read = requests.get(f"{base}/v1/fses/{mesa['id']}/devices/{device['id']}", headers=admin, timeout=10).json()
    [change] = read["frequency_changes"]
    assert (change["from_days"], change["frequency_days"], change["effective_on"], change["noticed_on"]) == (
        90,
        60,
        effective.isoformat(),
        today.isoformat(),
    )
    assert change["reason"] == "Measured depths allow a longer interval." and change["sooner_because"] is None
    accessible(browser, "the restaurant's devices after the change")
    fits(browser, screen, "the restaurant's devices after the change")
    # Not yet in force, the change is withdrawn with why; it stays listed as withdrawn.
    click(browser, f"button[data-withdraw='{change['id']}']")
    waiting_for(browser, lambda b: by_css(b, "#withdrawal-submit"), "the withdrawal form")
    type_into(browser, "#withdrawal-reason", "The permittee asked for a hearing.")
    click(browser, "#withdrawal-submit")
    withdrawn = words["withdrawn"].format(day=effective.isoformat())
    waiting_for(browser, lambda b: withdrawn in text_of(b, "#fse-done"), "the change withdrawn")
    read = requests.get(f"{base}/v1/fses/{mesa['id']}/devices/{device['id']}", headers=admin, timeout=10).json()
    assert read["frequency_days"] == 90
    assert [(c["withdrawn"], c["withdrawn_reason"]) for c in read["frequency_changes"]] == [
        (True, "The permittee asked for a hearing.")
    ]
    assert not by_css(browser, f"button[data-withdraw='{change['id']}']")
    accessible(browser, "the restaurant's devices after the withdrawal")


def test_a_hauler_admin_invites_a_dispatcher_who_accepts_and_signs_in(app, portal, screen, language, session):
    browser, base = portal
    words = WORDS[language]
    sign_in(browser, HAULER_ADMIN)
    waiting_for(browser, lambda b: by_css(b, "#staff #invite-submit") and rows(b, "#people"), "the hauler's staff")
    speak(browser, language, words["staff"])
    waiting_for(browser, lambda b: by_css(b, "#staff #invite-submit") and rows(b, "#people"), "the hauler's staff")
    accessible(browser, "the hauler admin's view")
    fits(browser, screen, "the hauler admin's view")
    # A hauler's admin invites to its own hauler only: nothing to choose but the role.
    assert not by_css(browser, "#invite-organisation")[0].is_displayed()
    assert [o.get_attribute("value") for o in Select(by_css(browser, "#invite-role")[0]).options] == [
        "dispatcher",
        "driver",
        "admin",
    ]
    type_into(browser, "#invite-email", "new.dispatcher@inland")
    click(browser, "#invite-submit")
    waiting_for(browser, lambda b: error_beside(b, "invite", "email")[0], "the error beside the address")
    assert error_beside(browser, "invite", "email")[1:] == ["true", True]
    type_into(browser, "#invite-email", "new.dispatcher@inland.example")
    Select(by_css(browser, "#invite-role")[0]).select_by_value("dispatcher")
    click(browser, "#invite-submit")
    waiting_for(browser, lambda b: words["dispatcher_sent"] in text_of(b, "#staff"), "the invitation sent")
    accessible(browser, "the hauler admin's staff after an invitation")
    fits(browser, screen, "the hauler admin's staff after an invitation")

    # Through the API: the invitation exists, to the hauler, as its dispatcher.
    kept = browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session'))")
    mine = {"Authorization": f"Bearer {kept['token']}"}
    [invited] = requests.get(f"{base}/v1/invitations", headers=mine, timeout=10).json()["items"]
    boss = session.scalar(select(Membership).join(Person).where(Person.email == HAULER_ADMIN))
    assert (invited["email"], invited["organisation"], invited["role"], invited["hauler_id"]) == (
        "new.dispatcher@inland.example",
        "hauler",
        "dispatcher",
        str(boss.hauler_id),
    )
    sign_out(browser)

    # The dispatcher accepts the mailed link, and signs in to the hauler's view without its staff.
    [mail] = mails(app)
    path = re.search(r"https://fogx\.test(/signin/invitations/\S+)", mail.get_body(("plain",)).get_content()).group(1)
    browser.get(f"{base}{path}")
    type_into(browser, "#name", "Nina Nuevo")
    type_into(browser, "#password", "a long passphrase of Nina's")
    by_css(browser, "#submit")[0].click()
    waiting_for(browser, lambda b: text_of(b, "h1") == "Welcome to fogx", "the welcome")
    browser.get(f"{base}/portal/")
    sign_in(browser, "new.dispatcher@inland.example", "a long passphrase of Nina's")
    waiting_for(browser, lambda b: by_css(b, "#file-submit"), "the dispatcher's filing form")
    assert text_of(browser, "#who-name").startswith("Nina Nuevo · ")
    assert by_css(browser, "#staff") == []
    # A member of the hauler now, as its dispatcher; who manages no one.
    joined = session.scalar(select(Membership).join(Person).where(Person.email == "new.dispatcher@inland.example"))
    assert (joined.organisation, joined.role, str(joined.hauler_id)) == ("hauler", "dispatcher", str(boss.hauler_id))
    kept = browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session'))")
    mine = {"Authorization": f"Bearer {kept['token']}"}
    assert requests.get(f"{base}/v1/memberships", headers=mine, timeout=10).status_code == 403


def test_a_city_admin_withdraws_an_invitation_removes_a_person_renews_a_permit_and_sets_the_policy(
    app, portal, screen, language
):
    browser, base = portal
    words = WORDS[language]
    admin = bearer(base, "demo-admin")
    sign_in(browser, CITY_ADMIN)
    speak(browser, language, words["title"])
    waiting_for(browser, lambda b: by_css(b, "#invite-submit") and rows(b, "#people"), "the city's people")

    # A driver of the hauler: the hauler is chosen beside the role, and is asked for if not.
    type_into(browser, "#invite-email", "sam.second@inland.example")
    Select(by_css(browser, "#invite-organisation")[0]).select_by_value("hauler")
    click(browser, "#invite-submit")
    waiting_for(browser, lambda b: error_beside(b, "invite", "hauler_id")[0], "the hauler asked for")
    [hauler] = requests.get(f"{base}/v1/haulers", headers=admin, timeout=10).json()["items"]
    Select(by_css(browser, "#invite-hauler_id")[0]).select_by_value(hauler["id"])
    Select(by_css(browser, "#invite-role")[0]).select_by_value("driver")
    click(browser, "#invite-submit")
    waiting_for(browser, lambda b: rows(b, "#invitations"), "the pending invitation")
    [invited] = requests.get(f"{base}/v1/invitations", headers=admin, timeout=10).json()["items"]
    assert (invited["organisation"], invited["role"], invited["hauler_id"]) == ("hauler", "driver", hauler["id"])
    # Withdrawn, after a second press: no longer pending, and its mailed link no longer works.
    click(browser, f"button[data-invitation='{invited['id']}']")
    click(browser, "#invitations button[data-confirm]")
    waiting_for(browser, lambda b: not rows(b, "#invitations"), "the invitation withdrawn")
    assert requests.get(f"{base}/v1/invitations", headers=admin, timeout=10).json()["items"] == []
    [mail] = mails(app)
    path = re.search(r"https://fogx\.test(/signin/invitations/\S+)", mail.get_body(("plain",)).get_content()).group(1)
    assert requests.get(f"{base}{path}", timeout=10).status_code == 410

    # The restaurant's operator is removed: their membership ends, shown as removed.
    members = requests.get(f"{base}/v1/memberships", headers=admin, timeout=10).json()["items"]
    [operator] = [m for m in members if m["person"]["email"] == "operator@demo.fogx.test"]
    click(browser, f"button[data-membership='{operator['id']}']")
    click(browser, "#people button[data-confirm]")
    waiting_for(browser, lambda b: not by_css(b, "#people button[data-confirm]"), "the removal")

    def removed(_):
        members = requests.get(f"{base}/v1/memberships", headers=admin, timeout=10).json()["items"]
        return [m["removed_at"] is not None for m in members if m["id"] == operator["id"]] == [True]

    waiting_for(browser, removed, "the membership ended")
    assert not by_css(browser, f"button[data-membership='{operator['id']}']")
    accessible(browser, "the people after a withdrawal and a removal")
    fits(browser, screen, "the people after a withdrawal and a removal")

    # Mesa Grill's renewal: a new permit, the interceptor moved to it from a day on, and the old
    # permit suspended from a later day.
    today = datetime.now(LA).date()
    [mesa] = requests.get(f"{base}/v1/fses", params={"q": "Mesa Grill"}, headers=admin, timeout=10).json()["items"]
    [device] = requests.get(f"{base}/v1/fses/{mesa['id']}/devices", headers=admin, timeout=10).json()["items"]
    click(browser, "#admin-tab-restaurants")
    click(browser, f"button[data-fse='{mesa['id']}']")
    waiting_for(browser, lambda b: by_css(b, "#new-permit-submit"), "the permit form")
    type_into(browser, "#new-permit-permit_number", "VV-FOG-0001-R")
    set_value(browser, "#new-permit-issued_on", today.isoformat())
    # Past the one-year term Victorville 10.03.080(a) sets: the API's refusal stands beside the date.
    set_value(browser, "#new-permit-expires_on", (today + timedelta(days=400)).isoformat())
    click(browser, "#new-permit-submit")
    waiting_for(browser, lambda b: error_beside(b, "new-permit", "expires_on")[0], "the term refused beside its date")
    said, invalid, beside = error_beside(browser, "new-permit", "expires_on")
    assert "Victorville 10.03.080(a)" in said and invalid == "true" and beside
    assert said.startswith("No se aceptó") == (language == "es")
    set_value(browser, "#new-permit-expires_on", (today + timedelta(days=300)).isoformat())
    click(browser, "#new-permit-submit")
    waiting_for(browser, lambda b: "VV-FOG-0001-R" in text_of(b, "#fse-done"), "the permit issued")
    click(browser, f"button[data-move='{device['id']}']")
    Select(by_css(browser, "#move-permit_number")[0]).select_by_value("VV-FOG-0001-R")
    set_value(browser, "#move-effective_on", (today + timedelta(days=10)).isoformat())
    type_into(browser, "#move-reason", "Annual renewal.")
    accessible(browser, "the move form")
    fits(browser, screen, "the move form")
    click(browser, "#move-submit")
    waiting_for(browser, lambda b: words["moved"] in text_of(b, "#fse-done"), "the move")
    read = requests.get(f"{base}/v1/fses/{mesa['id']}/devices/{device['id']}", headers=admin, timeout=10).json()
    # The demo's earlier renewals come first; this move is the latest.
    move = read["permit_moves"][-1]
    assert (move["from_permit_id"], move["effective_on"]) == (
        device["permit_id"],
        (today + timedelta(days=10)).isoformat(),
    )
    click(browser, f"button[data-permit='{device['permit_id']}']")
    Select(by_css(browser, "#permit-status-status")[0]).select_by_value("suspended")
    set_value(browser, "#permit-status-effective_on", (today + timedelta(days=20)).isoformat())
    type_into(browser, "#permit-status-reason", "Hearing officer's order.")
    set_value(browser, "#permit-status-notice_on", today.isoformat())
    click(browser, "#permit-status-submit")
    suspended = words["suspended"].format(day=(today + timedelta(days=20)).isoformat())
    waiting_for(browser, lambda b: suspended in text_of(b, "#fse-done"), "the status changed")
    permit = requests.get(f"{base}/v1/permits/{device['permit_id']}", headers=admin, timeout=10).json()
    assert {
        "status": "suspended",
        "effective_on": (today + timedelta(days=20)).isoformat(),
        "reason": "Hearing officer's order.",
        "notice_on": today.isoformat(),
    }.items() <= (permit["status_history"][-1].items())
    accessible(browser, "the restaurant after its renewal")
    fits(browser, screen, "the restaurant after its renewal")

    # The sign-in policy: a second factor required of the city's staff.
    click(browser, "#admin-tab-sign-in")
    click(browser, "#policy-staff_totp_required")
    click(browser, "#policy-submit")
    policy = f"{base}/v1/jurisdictions/victorville/sign-in-policy"
    waiting_for(
        browser,
        lambda _: requests.get(policy, headers=admin, timeout=10).json()["staff_totp_required"],
        "the policy saved",
    )
    accessible(browser, "the sign-in policy")
    fits(browser, screen, "the sign-in policy")


def test_a_site_admin_invites_a_clerk(app, portal, screen):
    """The site's view is written in English; its admin's staff section is under it."""
    browser, base = portal
    sign_in(browser, "site-admin@demo.fogx.test")
    waiting_for(browser, lambda b: by_css(b, "#staff #invite-submit") and rows(b, "#people"), "the site's staff")
    accessible(browser, "the site admin's view")
    fits(browser, screen, "the site admin's view")
    assert [o.get_attribute("value") for o in Select(by_css(browser, "#invite-role")[0]).options] == ["clerk", "admin"]
    type_into(browser, "#invite-email", "second.gate@hdr.example")
    Select(by_css(browser, "#invite-language")[0]).select_by_value("es")  # the clerk reads Spanish
    click(browser, "#invite-submit")
    waiting_for(browser, lambda b: rows(b, "#invitations"), "the pending invitation")
    waiting_for(browser, lambda b: mails(app), "the invitation's mail")
    assert [(m["To"], m["Content-Language"]) for m in mails(app)] == [("second.gate@hdr.example", "es")]
    kept = browser.execute_script("return JSON.parse(sessionStorage.getItem('fogx.portal.session'))")
    mine = {"Authorization": f"Bearer {kept['token']}"}
    [invited] = requests.get(f"{base}/v1/invitations", headers=mine, timeout=10).json()["items"]
    [site] = requests.get(f"{base}/v1/disposal-sites", headers=bearer(base, "demo-admin"), timeout=10).json()["items"]
    assert (invited["email"], invited["organisation"], invited["role"], invited["site_id"]) == (
        "second.gate@hdr.example",
        "site",
        "clerk",
        site["id"],
    )
    accessible(browser, "the site admin's staff after an invitation")
    fits(browser, screen, "the site admin's staff after an invitation")


def test_a_city_admins_haulers_sites_and_audit_tabs_read_well_at_each_size(portal, screen, language):
    browser, base = portal
    sign_in(browser, CITY_ADMIN)
    speak(browser, language, WORDS[language]["title"])
    waiting_for(browser, lambda b: by_css(b, "#invite-submit"), "the city's people")
    click(browser, "#admin-tab-haulers")
    click(browser, "#haulers-tab tbody button")
    waiting_for(browser, lambda b: by_css(b, "#licence-submit"), "the licence form")
    assert "Inland Grease Services" in text_of(browser, "#haulers-tab")
    accessible(browser, "the haulers with the licence form")
    fits(browser, screen, "the haulers with the licence form")
    click(browser, "#admin-tab-sites")
    click(browser, "#sites-tab tbody button")
    waiting_for(browser, lambda b: by_css(b, "#site-status-submit"), "the site's status form")
    assert "High Desert Renewables" in text_of(browser, "#sites-tab")
    accessible(browser, "the disposal sites with the status form")
    fits(browser, screen, "the disposal sites with the status form")
    click(browser, "#admin-tab-audit")
    waiting_for(browser, lambda b: rows(b, "#audit-panel"), "the auditor's lists")
    accessible(browser, "the city audit in the admin's view")
    fits(browser, screen, "the city audit in the admin's view")
