"""The sign-in page speaks the person's language: Spanish when the app asks for it
(`ui_locales=es`, OpenID Connect Core 3.1.2.1) or the browser prefers it (Accept-Language),
English otherwise; its refusal of a wrong password too, and the language survives the POST."""

import pytest

from tests import factories
from tests import people_factories as pf
from tests.people_factories import city  # noqa: F401

SPANISH = ["Iniciar sesión en", "Correo electrónico", "Contraseña", "¿Olvidó su contraseña?", 'lang="es"']
ENGLISH = ["Sign in to", "Email address", "Password", "Forgot your password?", 'lang="en"']


def _person(session):
    pf.person(
        session,
        email="ivy@v.example",
        organisation="city",
        role="auditor",
        jurisdiction_id=factories.jurisdiction(session).id,
    )


@pytest.mark.parametrize(
    ("locales", "accept", "expected"),
    [
        ("es", None, SPANISH),
        ("es-MX en", None, SPANISH),
        ("fr es", None, SPANISH),
        (None, "es-ES,es;q=0.9", SPANISH),
        ("en", "es", ENGLISH),  # the app's choice before the browser's
        (None, None, ENGLISH),
        ("fr", None, ENGLISH),
    ],
)
def test_the_sign_in_page_is_in_the_language_asked_for(client, city, session, locales, accept, expected):
    _person(session)
    _, challenge = pf.pkce()
    url = pf.authorize_url(city["portal"], challenge, scope="audit:read")
    if locales:
        url += "&ui_locales=" + locales.replace(" ", "+")
    page = client.get(url, headers={"Accept-Language": accept} if accept else {})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for words in expected:
        assert words in text, words
    for words in SPANISH if expected is ENGLISH else ENGLISH:
        assert words not in text, words


def test_a_wrong_password_is_told_in_spanish_and_the_right_one_signs_in(client, city, session):
    _person(session)
    _, challenge = pf.pkce()
    browser = pf.Browser(client)
    browser.open(pf.authorize_url(city["portal"], challenge, scope="audit:read") + "&ui_locales=es")
    refused = browser.submit(email="ivy@v.example", password="not it")
    assert refused.status_code == 401, refused.status_code
    text = refused.get_data(as_text=True)
    assert "El correo electrónico o la contraseña no son correctos." in text and 'lang="es"' in text
    assert pf.code_from(browser.submit(email="ivy@v.example", password=pf.PASSWORD))
