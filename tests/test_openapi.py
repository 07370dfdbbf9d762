"""openapi.yaml is valid OpenAPI 3.1 and describes exactly the routes the app has."""
import re

import yaml
from openapi_spec_validator import validate

from api.config import ROOT

METHODS = {"get", "post", "put", "patch", "delete"}


def load_spec():
    with open(ROOT / "openapi.yaml") as handle:
        return yaml.safe_load(handle)


def app_routes(app):
    routes = set()
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add((path, method.lower()))
    return routes


def spec_routes(spec):
    return {
        (path, method)
        for path, item in spec["paths"].items()
        for method in item
        if method in METHODS
    }


def test_openapi_document_is_valid_3_1():
    spec = load_spec()
    assert spec["openapi"].startswith("3.1")
    validate(spec)


def test_openapi_paths_and_methods_equal_the_app_routes(app):
    assert spec_routes(load_spec()) == app_routes(app)


def test_protected_routes_declare_the_scopes_the_app_requires(app):
    spec = load_spec()
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        required = getattr(view, "required_scopes", None)
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            operation = spec["paths"][path][method.lower()]
            declared = operation.get("security", spec["security"])
            if required is None:
                assert declared == [], f"{method} {path} is public but the spec asks for auth"
            else:
                assert sorted(s for entry in declared for s in entry["oauth2"]) == sorted(required), (
                    f"{method} {path}: spec and app disagree on scopes"
                )
                assert "401" in operation["responses"] and "403" in operation["responses"]
