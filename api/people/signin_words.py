"""The sign-in page's words in the person's language: the one the app asks for (`ui_locales`,
OpenID Connect Core 3.1.2.1), else the browser's (Accept-Language), else English."""

from flask import request

WORDS = {
    "en": {
        "title": "Sign in to {app}",
        "tagline": "FOG manifest exchange",
        "email": "Email address",
        "password": "Password",
        "submit": "Sign in",
        "forgot": "Forgot your password?",
    },
    "es": {
        "title": "Iniciar sesión en {app}",
        "tagline": "Intercambio de manifiestos de grasa",
        "email": "Correo electrónico",
        "password": "Contraseña",
        "submit": "Iniciar sesión",
        "forgot": "¿Olvidó su contraseña?",
    },
}

# The sign-in's own refusals, in Spanish (the services word them in English).
SPANISH = {
    "The email address or the password is not right.": "El correo electrónico o la contraseña no son correctos.",
    "That took too long, or the page was changed: sign in again.": (
        "Pasó demasiado tiempo, o la página cambió: inicie sesión de nuevo."
    ),
    "Sign in again.": "Inicie sesión de nuevo.",
    "Your password has changed since: sign in again.": "Su contraseña cambió desde entonces: inicie sesión de nuevo.",
}


def language():
    """'es' or 'en': the first of the app's `ui_locales` fogx speaks, else the browser's choice."""
    for tag in (request.args.get("ui_locales") or "").split():
        code = tag.split("-")[0].lower()
        if code in WORDS:
            return code
    return request.accept_languages.best_match(list(WORDS), default="en")


def words(app_name):
    """The page's words and its language code."""
    code = language()
    chosen = {key: text.replace("{app}", app_name) for key, text in WORDS[code].items()}
    return code, chosen


def said(message):
    """A refusal's message in the page's language."""
    return SPANISH.get(message, message) if message and language() == "es" else message
