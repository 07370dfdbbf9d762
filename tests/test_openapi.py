"""openapi.yaml is valid OpenAPI 3.1 and describes exactly the routes the app has."""

import re
from datetime import UTC, datetime

import yaml
from openapi_spec_validator import validate

from api.config import ROOT
from tests.spec import METHODS, json_bodies, load_spec, operations, schema_errors


def app_routes(app):
    routes = set()
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routes.add((path, method.lower()))
    return routes


def spec_routes(spec):
    return {(path, method) for path, item in spec["paths"].items() for method in item if method in METHODS}


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


def test_every_json_body_has_an_example_that_its_schema_accepts():
    spec = load_spec()
    bodies = dict(json_bodies(spec))
    assert len(bodies) >= 12
    for name, media in bodies.items():
        assert "example" in media, f"{name} has no example"
        assert schema_errors(spec, media["schema"], media["example"]) == [], name
    for name, operation in operations(spec):
        for status, response in operation.get("responses", {}).items():
            media = response.get("content", {}).get("application/json", {})
            if "example" in media:
                assert schema_errors(spec, media["schema"], media["example"]) == [], f"{name} {status}"
    # The validator can fail: a body the schema refuses is caught.
    filing = bodies["POST /v1/manifests"]
    assert schema_errors(spec, filing["schema"], dict(filing["example"], gallons_removed="1500"))


def test_the_manifest_examples_file_and_correct_against_the_demo_data(app, client, frozen_clock):
    """What the documentation shows a dispatch vendor is a filing the app accepts as it stands:
    the demo hauler files the example for the demo permit and site, then corrects it with the
    correction's example. (The demo is loaded a few days after the example's service.)"""
    from tests import factories

    frozen_clock(datetime(2026, 12, 3, 12, tzinfo=UTC))
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    spec = load_spec()
    bodies = dict(json_bodies(spec))
    headers = factories.bearer(factories.token(client, "demo-hauler", "demo-hauler-secret"))
    filing = bodies["POST /v1/manifests"]["example"]
    filed = client.post("/v1/manifests", headers=headers, json=filing)
    assert filed.status_code == 201, filed.json
    assert filed.json["manifest_number"] == filing["manifest_number"]
    # A compliant service: filed after the city's deadline it is late, and nothing else.
    assert {finding["code"] for finding in filed.json["findings"]} <= {"late_submission"}
    # The documented receipt has the shape of the one the app sends.
    documented = spec["paths"]["/v1/manifests"]["post"]["responses"]["201"]["content"]["application/json"]["example"]
    assert list(filed.json) == list(documented)
    assert list(filed.json["manifest"]) == list(documented["manifest"])
    assert filed.json["manifest"]["service_completed_at"] == documented["manifest"]["service_completed_at"]
    correction = bodies["POST /v1/manifests/{manifest_id}/corrections"]["example"]
    corrected = client.post(f"/v1/manifests/{filed.json['id']}/corrections", headers=headers, json=correction)
    assert corrected.status_code == 201, corrected.json
    assert corrected.json["revision"] == 2 and corrected.json["manifest"]["gallons_removed"] == 1450


SCHEMA_KEYWORDS = {
    "$ref",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "enum",
    "const",
    "format",
    "description",
    "title",
    "default",
    "example",
    "examples",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "contentMediaType",
    "contentEncoding",
    "readOnly",
    "writeOnly",
    "deprecated",
    "discriminator",
}


def _schema_keyword_slips(schema, where):
    """Keys of `schema` (and the schemas inside it) that no schema keyword spells: a slip of
    YAML (an unquoted comma in a flow mapping makes a key of the rest) or of the pen."""
    if not isinstance(schema, dict):
        return []
    slips = [f"{where}: {key!r}" for key in schema if key not in SCHEMA_KEYWORDS]
    for name, sub in schema.get("properties", {}).items():
        slips += _schema_keyword_slips(sub, f"{where}.{name}")
    for key in ("items", "additionalProperties", "not"):
        slips += _schema_keyword_slips(schema.get(key), f"{where}[{key}]")
    for key in ("oneOf", "anyOf", "allOf", "prefixItems"):
        for n, sub in enumerate(schema.get(key, [])):
            slips += _schema_keyword_slips(sub, f"{where}[{key}][{n}]")
    return slips


def _schemas_in(node, where):
    """Every schema the document holds outside components/schemas: the values of `schema`."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "schema":
                yield where, value
            else:
                yield from _schemas_in(value, f"{where}/{key}")
    elif isinstance(node, list):
        for n, value in enumerate(node):
            yield from _schemas_in(value, f"{where}/{n}")


def test_schemas_use_only_schema_keywords():
    spec = load_spec()
    schemas = [(f"components/schemas/{name}", schema) for name, schema in spec["components"]["schemas"].items()]
    schemas += list(_schemas_in(spec["paths"], "paths"))
    schemas += list(_schemas_in({k: v for k, v in spec["components"].items() if k != "schemas"}, "components"))
    assert len(schemas) > 100
    assert [slip for where, schema in schemas for slip in _schema_keyword_slips(schema, where)] == []
    # It catches the slip it was written for.
    slipped = yaml.safe_load("{type: object, description: The manifest as filed, times in UTC.}")
    assert _schema_keyword_slips(slipped, "manifest") == ["manifest: 'times in UTC.'"]


def _request_schemas(spec):
    """The component schemas a request body names, and those they name in turn."""
    names, pending = (
        set(),
        [
            op["requestBody"]
            for item in spec["paths"].values()
            for method, op in item.items()
            if method in METHODS and "requestBody" in op
        ],
    )
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/components/schemas/") and ref.split("/")[-1] not in names:
                names.add(ref.split("/")[-1])
                pending.append(spec["components"]["schemas"][ref.split("/")[-1]])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return names


PRINTABLE = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$"


def _free_text(schema):
    """Every string in `schema`, nested ones too, that is not a format, an enum, bytes or an
    alphabet of its own (a SHA-256's hex)."""
    if isinstance(schema, dict):
        types = schema.get("type")
        if (
            (types == "string" or isinstance(types, list) and "string" in types)
            and not {"format", "enum", "$ref", "contentMediaType"} & schema.keys()
            and schema.get("pattern", PRINTABLE) == PRINTABLE
        ):
            yield schema
        for value in schema.values():
            yield from _free_text(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _free_text(value)


def test_free_text_in_a_request_is_described_as_the_app_checks_it():
    """The app refuses control characters in free text (tab, line feed and carriage return
    aside: `schemas.registry.printable`); the schema of every such string in a request body
    says so with the same characters. The OAuth token endpoint's form fields are RFC 6749's."""
    from schemas.registry import CONTROL

    spec = load_spec()
    strings = [
        s for name in _request_schemas(spec) - {"TokenRequest"} for s in _free_text(spec["components"]["schemas"][name])
    ]
    assert len(strings) > 30
    assert [s for s in strings if "pattern" not in s] == []
    for code in range(0x80):
        character = chr(code)
        assert (re.fullmatch(PRINTABLE, f"a{character}b") is None) == bool(CONTROL.search(character)), repr(character)


def test_no_key_is_written_twice_in_a_mapping():
    """YAML keeps the last of two equal keys without a word: a second schema of one name would
    replace the first wherever it is referenced."""

    class Strict(yaml.SafeLoader):
        pass

    def mapping(loader, node):
        keys = [loader.construct_object(key) for key, _ in node.value]
        twice = {key for key in keys if keys.count(key) > 1}
        assert not twice, f"line {node.start_mark.line + 1}: {sorted(twice)} twice"
        return loader.construct_mapping(node)

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    with open(ROOT / "openapi.yaml") as handle:
        assert yaml.load(handle, Loader=Strict)["paths"]
