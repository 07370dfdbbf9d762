"""The OpenAPI document and its browsable rendering (assets shipped by flask-swagger-ui)."""
from flask import Blueprint, send_file
from flask_swagger_ui import get_swaggerui_blueprint

from api.config import ROOT

bp = Blueprint("docs", __name__)
swagger_ui = get_swaggerui_blueprint("/docs", "/openapi.yaml", config={"app_name": "fogx API"})


@bp.get("/openapi.yaml")
def openapi_document():
    return send_file(ROOT / "openapi.yaml", mimetype="application/yaml", max_age=0)
