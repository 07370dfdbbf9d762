"""The OpenAPI document and its browsable rendering (Swagger UI's files, as flask-swagger-ui
ships them).

The rendering's page and the script that starts it are this module's own: flask-swagger-ui's
page has an inline script, which a Content-Security-Policy that admits only the page's own
files would stop."""

import functools
from pathlib import Path

import flask_swagger_ui
from flask import Blueprint, Response, current_app, send_from_directory

from api.config import ROOT

bp = Blueprint("docs", __name__)
SWAGGER_UI = Path(flask_swagger_ui.__file__).parent / "dist"

# Swagger UI's own files and its calls to this API (the document, "Try it out"); its icons are
# data: URLs and it sets style attributes as it renders. No framing, no other origin.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>fogx API</title>
  <link rel="stylesheet" href="/docs/index.css">
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/fogx-docs.js"></script>
</body>
</html>
"""

SCRIPT = """window.ui = SwaggerUIBundle({
  url: "/openapi.yaml",
  dom_id: "#swagger-ui",
  layout: "StandaloneLayout",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
});
"""


# The address openapi.yaml is written for (its `servers` and its examples); served, the
# document names the instance's own public address instead.
WRITTEN_FOR = "http://127.0.0.1:8000"


@functools.cache
def _document(base_url: str) -> bytes:
    return (ROOT / "openapi.yaml").read_text(encoding="utf-8").replace(WRITTEN_FOR, base_url).encode()


@bp.get("/openapi.yaml")
def openapi_document():
    response = Response(_document(current_app.config["PUBLIC_BASE_URL"]), mimetype="application/yaml")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/docs/")
@bp.get("/docs/<path:path>")
def rendered(path="index.html"):
    if path == "index.html":
        return Response(PAGE, mimetype="text/html")
    if path == "fogx-docs.js":
        return Response(SCRIPT, mimetype="text/javascript")
    return send_from_directory(SWAGGER_UI, path)


@bp.after_request
def _protect(response):
    response.headers["Content-Security-Policy"] = POLICY
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response
