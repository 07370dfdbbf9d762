"""Multipart bodies as openapi.yaml describes them: a scan is a file part, and a client built
from the description sends it as one; a scan sent as a text field is refused, never dropped."""

import io
import json

import pytest
from sqlalchemy import func, select

from storage.models import Document, Manifest
from tests import factories
from tests.manifest_world import NOW, build
from tests.spec import load_spec


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


def _multipart_bodies(spec):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "put", "post", "delete", "patch"):
                continue  # the path's shared `parameters`, not an operation
            content = operation.get("requestBody", {}).get("content", {})
            if "multipart/form-data" in content:
                yield f"{method.upper()} {path}", content["multipart/form-data"]


def _resolve(spec, schema):
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].split("/")[-1]]
    return schema


def test_every_file_part_is_binary_with_its_content_types():
    """OpenAPI 3's way to say a part is a file: `type: string, format: binary`, and the
    part's `encoding` gives its content types. Without them a generated client (such as
    openapi-python-client) sends the bytes as a text field."""
    spec = load_spec()
    files = {}
    for where, body in _multipart_bodies(spec):
        properties = _resolve(spec, body["schema"])["properties"]
        for name, part in properties.items():
            part = _resolve(spec, part)
            item = _resolve(spec, part.get("items", {})) if part.get("type") == "array" else part
            if "contentMediaType" in item or item.get("format") == "binary":
                files[f"{where} {name}"] = (
                    item.get("format"),
                    body.get("encoding", {}).get(name, {}).get("contentType"),
                )
    assert files == {
        "POST /v1/imports/{kind} file": ("binary", "text/csv"),
        "POST /v1/manifests documents": ("binary", "application/pdf, image/jpeg, image/png, image/tiff"),
        "POST /v1/manifests/{manifest_id}/documents documents": (
            "binary",
            "application/pdf, image/jpeg, image/png, image/tiff",
        ),
    }


def _count(session, model):
    session.expire_all()
    return session.scalar(select(func.count()).select_from(model))


def test_a_scan_sent_as_a_text_field_is_422_naming_documents(world, session):
    token = factories.bearer(world.hauler_token)
    scan = factories.pdf_bytes().decode("latin-1")
    response = world.client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=token,
        data={"manifest": json.dumps(world.body()), "documents": scan},
    )
    assert response.status_code == 422 and response.mimetype == "application/problem+json", response.json
    assert "documents" in response.json["errors"]
    assert (_count(session, Manifest), _count(session, Document)) == (0, 0)
    # One text field beside a file part is refused as well: nothing sent is dropped.
    response = world.client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=token,
        data={
            "manifest": json.dumps(world.body()),
            "documents": [(io.BytesIO(factories.png_bytes()), "scan.png"), "text"],
        },
    )
    assert response.status_code == 422 and "documents" in response.json["errors"]
    assert (_count(session, Manifest), _count(session, Document)) == (0, 0)


def test_a_scan_added_as_a_text_field_is_422_naming_documents(world, session):
    token = factories.bearer(world.hauler_token)
    filed = world.post(world.body())
    assert filed.status_code == 201
    response = world.client.post(
        f"/v1/manifests/{filed.json['id']}/documents",
        content_type="multipart/form-data",
        headers=token,
        data={"documents": factories.pdf_bytes().decode("latin-1")},
    )
    assert response.status_code == 422 and "documents" in response.json["errors"], response.json
    assert _count(session, Document) == 0
