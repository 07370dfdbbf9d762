"""Consent to a third-party app is given for the organisation the consent page names (exchange
policy): a person with several memberships is asked again for each."""

from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select

from storage.people import Consent
from tests import factories
from tests import people_factories as pf

CALLBACK = "https://audit-helper.example/cb"


@pytest.fixture
def ivy(session):
    """An auditor of Victorville and of Tracy (one person, two memberships), and a third-party app."""
    victorville, tracy = factories.jurisdiction(session, "victorville"), factories.jurisdiction(session, "tracy")
    first = pf.person(
        session, email="ivy@cities.example", organisation="city", role="auditor", jurisdiction_id=victorville.id
    )
    second = pf.person(
        session, email="ivy@cities.example", organisation="city", role="auditor", jurisdiction_id=tracy.id
    )
    app_id, _ = pf.app(session, redirect_uri=CALLBACK, public=True, first_party=False, name="Audit Helper")
    return first, second, app_id


def signing_in(client, app_id, membership):
    """A browser past the password and the choice of organisation: at consent, or back at the app."""
    _, challenge = pf.pkce()
    browser = pf.Browser(client)
    browser.open(pf.authorize_url(app_id, challenge, scope="audit:read", redirect_uri=CALLBACK))
    assert "Act for which organisation" in browser.submit(email="ivy@cities.example", password=pf.PASSWORD).text
    return browser, browser.submit(membership=str(membership.id))


def test_consent_for_one_city_is_not_consent_for_another(client, session, ivy):
    victorville, tracy, app_id = ivy
    browser, answer = signing_in(client, app_id, victorville)
    assert answer.status_code == 200 and "asks to act for you, auditor of City of Victorville" in browser.page
    assert pf.code_from(browser.submit(decision="allow"))

    # Tracy was never named on a consent page: the app is not let in there without asking.
    browser, answer = signing_in(client, app_id, tracy)
    assert answer.status_code == 200, answer.headers.get("Location")
    assert "asks to act for you, auditor of City of Tracy" in browser.page
    denied = browser.submit(decision="deny")
    assert parse_qs(urlsplit(denied.headers["Location"]).query)["error"] == ["access_denied"]
    assert session.scalars(select(Consent.membership_id)).all() == [victorville.id]

    # Victorville's consent is remembered, for Victorville.
    _, answer = signing_in(client, app_id, victorville)
    assert pf.code_from(answer)


def test_a_consent_kept_before_is_kept_only_where_its_organisation_is_certain(app, client, session, ivy):
    """Migration 0029: a consent of a person who has only ever had one membership is that
    membership's; one of a person with several could have been for any, and is asked again."""
    victorville, _, app_id = ivy
    hauler = factories.hauler(session)
    sam = pf.person(session, email="sam@h.example", organisation="hauler", role="dispatcher", hauler_id=hauler.id)
    _, challenge = pf.pkce()
    browser = pf.Browser(client)
    browser.open(pf.authorize_url(app_id, challenge, scope="manifests:read", redirect_uri=CALLBACK))
    browser.submit(email="sam@h.example", password=pf.PASSWORD)
    assert pf.code_from(browser.submit(decision="allow"))
    browser, _ = signing_in(client, app_id, victorville)
    assert pf.code_from(browser.submit(decision="allow"))

    factories.migrated_again(app, session, down_to="0026")
    assert session.execute(select(Consent.person_id, Consent.membership_id)).all() == [(sam.person_id, sam.id)]
    _, answer = signing_in(client, app_id, victorville)
    assert answer.status_code == 200 and "asks to act for you" in answer.get_data(as_text=True)
