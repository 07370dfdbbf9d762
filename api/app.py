"""`create_app(config)`: extensions are created at module level and wired here."""
import logging
import re
import uuid

from flask import Flask, g, request
from werkzeug.middleware.proxy_fix import ProxyFix

from api import cli, errors
from api.config import load_config
from storage.db import db
from storage.objects import make_store

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,100}$")


def create_app(config=None):
    app = Flask(__name__, instance_relative_config=False)
    app.config.update(load_config(config))
    # Werkzeug refuses larger bodies with a 413 before a view reads them, chunked or not.
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_UPLOAD_BYTES"]
    app.json.sort_keys = False

    if app.config["TRUSTED_PROXIES"]:
        # Behind a TLS-terminating proxy the scheme and client address come from its headers.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=app.config["TRUSTED_PROXIES"],
                                x_proto=app.config["TRUSTED_PROXIES"])
    db.init_app(app)
    app.extensions["fogx.store"] = make_store(app.config)
    errors.init_app(app)
    cli.init_app(app)
    _request_ids(app)

    from auth.server import init_app as init_auth

    init_auth(app)

    from api import health, docs, jurisdictions

    app.register_blueprint(health.bp)
    app.register_blueprint(docs.bp)
    app.register_blueprint(docs.swagger_ui)
    app.register_blueprint(jurisdictions.bp)
    logging.basicConfig(level=logging.INFO)
    return app


def _request_ids(app):
    @app.before_request
    def _assign():
        supplied = request.headers.get("X-Request-Id", "")
        g.request_id = supplied if _REQUEST_ID.match(supplied) else uuid.uuid4().hex

    @app.after_request
    def _echo(response):
        response.headers["X-Request-Id"] = g.get("request_id", "")
        return response
