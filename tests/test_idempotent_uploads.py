"""`Idempotency-Key` on multipart filings: the key matches every part of the body, not its
length; a retry with another multipart boundary is the same request."""

import io
import json
import tracemalloc

import pytest
from sqlalchemy import func, select

from storage.models import Document, Manifest
from tests import factories
from tests.manifest_world import NOW, build


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


def multipart(parts, boundary):
    """A multipart body with the boundary given: (body, content type)."""
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += b"--" + boundary + f"\r\nContent-Disposition: {disposition}\r\n".encode()
        if filename:
            out += b"Content-Type: application/octet-stream\r\n"
        out += b"\r\n" + data + b"\r\n"
    return out + b"--" + boundary + b"--\r\n", "multipart/form-data; boundary=" + boundary.decode()


def file_manifest(world, body, scan, *, key, boundary=b"fogx-one", filename="scan.pdf"):
    data, content_type = multipart(
        [("manifest", None, json.dumps(body).encode()), ("documents", filename, scan)], boundary
    )
    return world.client.post(
        "/v1/manifests",
        data=data,
        content_type=content_type,
        headers={**factories.bearer(world.hauler_token), "Idempotency-Key": key},
    )


def counts(session):
    session.expire_all()
    return (
        session.scalar(select(func.count()).select_from(Manifest)),
        session.scalar(select(func.count()).select_from(Document)),
    )


def test_the_same_key_with_another_scan_of_the_same_size_is_422(world, session):
    first_scan, second_scan = factories.pdf_bytes("SCAN OF LOAD A"), factories.pdf_bytes("SCAN OF LOAD B")
    assert len(first_scan) == len(second_scan) and first_scan != second_scan
    body = world.body()
    first = file_manifest(world, body, first_scan, key="load-1")
    assert first.status_code == 201, first.json
    second = file_manifest(world, body, second_scan, key="load-1")
    assert second.status_code == 422 and second.mimetype == "application/problem+json", second.json
    assert "Idempotency-Key" in second.json["errors"]
    assert "Idempotent-Replayed" not in second.headers
    assert counts(session) == (1, 1)
    (document,) = session.scalars(select(Document)).all()
    assert document.size_bytes == len(first_scan)


def test_the_same_key_with_another_filename_or_field_is_422(world, session):
    scan = factories.pdf_bytes()
    body = world.body()
    assert file_manifest(world, body, scan, key="load-2").status_code == 201
    assert file_manifest(world, body, scan, key="load-2", filename="other.pdf").status_code == 422
    changed = dict(body, driver_name="Sam Drivex")  # the same length, another driver
    assert file_manifest(world, changed, scan, key="load-2").status_code == 422
    assert counts(session) == (1, 1)


def test_a_retry_with_another_boundary_replays_the_first_answer(world, session):
    scan = factories.pdf_bytes()
    body = world.body()
    first = file_manifest(world, body, scan, key="load-3", boundary=b"fogx-one")
    again = file_manifest(world, body, scan, key="load-3", boundary=b"fogx-two-longer")
    assert first.status_code == 201
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json
    assert counts(session) == (1, 1)


def test_the_body_is_hashed_as_it_is_spooled_not_held(world, session):
    """A large upload under a key: what Python allocates stays far below its size."""
    scan = b"%PDF-1.4\n" + b"0" * (24 * 1024 * 1024)
    data, content_type = multipart(
        [("manifest", None, json.dumps(world.body()).encode()), ("documents", "big.pdf", scan)], b"fogx-big"
    )
    del scan
    headers = {**factories.bearer(world.hauler_token), "Idempotency-Key": "big-1"}
    stream = io.BytesIO(data)
    length = len(data)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        baseline = tracemalloc.get_traced_memory()[0]
        response = world.client.post(
            "/v1/manifests",
            input_stream=stream,
            content_type=content_type,
            headers={**headers, "Content-Length": str(length)},
        )
        peak = tracemalloc.get_traced_memory()[1] - baseline
    finally:
        tracemalloc.stop()
    assert response.status_code == 422  # no sound PDF: it was read whole and judged
    assert peak < 8 * 1024 * 1024, peak
