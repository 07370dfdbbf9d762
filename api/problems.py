"""The pages problem `type` URIs point at (`/problems/<slug>`): what went wrong and how to fix
it, as HTML for a person and as JSON for a program that asks for it."""

from flask import Blueprint, abort, current_app, jsonify, render_template, request

from api.errors import type_uri
from api.problem_types import PROBLEM_TYPES

bp = Blueprint("problems", __name__, url_prefix="/problems")


def _wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["text/html", "application/json", "application/problem+json"])
    return best in ("application/json", "application/problem+json")


def _entry(slug):
    title, what, fix = PROBLEM_TYPES[slug]
    return {"type": type_uri(slug), "title": title, "what_went_wrong": what, "how_to_fix": fix}


def _page(template, **context):
    response = current_app.make_response(render_template(template, **context))
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; frame-ancestors 'none'"
    )
    return response


@bp.get("")
def index():
    entries = [_entry(slug) for slug in PROBLEM_TYPES]
    if _wants_json():
        return jsonify({"items": entries})
    return _page("problems/index.html", entries=entries)


@bp.get("/<slug>")
def problem_type(slug):
    if slug not in PROBLEM_TYPES:
        abort(404)
    entry = _entry(slug)
    if _wants_json():
        return jsonify(entry)
    return _page("problems/type.html", entry=entry)
