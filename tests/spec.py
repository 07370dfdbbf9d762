"""openapi.yaml as the tests read it: the document, its operations and JSON bodies, and a value
checked against one of its schemas."""

import yaml

from api.config import ROOT

METHODS = {"get", "post", "put", "patch", "delete"}


def load_spec():
    with open(ROOT / "openapi.yaml") as handle:
        return yaml.safe_load(handle)


def operations(spec):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield f"{method.upper()} {path}", operation


def json_bodies(spec):
    for name, operation in operations(spec):
        media = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if media is not None:
            yield name, media


def schema_errors(spec, schema, value):
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(
        {**schema, "components": spec["components"]}, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    return [error.message for error in validator.iter_errors(value)]
