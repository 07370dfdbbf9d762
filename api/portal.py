"""The web portal for restaurant operators, city auditors and haulers: static pages that call
the same API, with the same OAuth client credentials, as any other client."""

from flask import Blueprint, redirect, send_from_directory

from api.config import ROOT

bp = Blueprint("portal", __name__)
FILES = ROOT / "portal"
# Nothing but the portal's own files, and its calls to this API: no inline script or style, no
# other origin, no framing (an access token is in the page). The driver's app adds its own web
# app manifest and service worker, from this origin too.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "manifest-src 'self'; worker-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)


@bp.get("/")
def home():
    return redirect("/portal/")


@bp.get("/portal/")
def index():
    return _file("index.html")


@bp.get("/portal/driver/")
def driver():
    """The driver's phone app: installable, and usable with no signal (its service worker)."""
    return _file("driver/index.html")


@bp.get("/portal/<path:path>")
def asset(path):
    return _file(path)


def _file(name):
    mimetype = "application/manifest+json" if name.endswith(".webmanifest") else None
    response = send_from_directory(FILES, name, max_age=0, mimetype=mimetype)
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
