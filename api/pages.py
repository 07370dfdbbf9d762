"""The server-rendered pages' response: what every HTML page fogx draws itself is sent with."""

from flask import make_response, render_template


def page(template, status=200, *, form_targets="", **context):
    """A server-rendered page: nothing but its own style sheet, never framed, never cached."""
    response = make_response(render_template(template, **context), status)
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'self'; img-src 'self'; "
        f"form-action 'self'{' ' + form_targets if form_targets else ''}; base-uri 'none'; frame-ancestors 'none'"
    )
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-store"
    return response
