"""Hostile input: every one a 4xx problem+json, never a 500, and nothing stored."""

import io
import json
import struct

import pytest

from tests import factories
from tests.manifest_world import NOW, build
from tests.refusals import assert_refused, raw_post


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


def deeply_nested(depth):
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "name, data",
    [
        ("malformed", '{"manifest_number": '),
        ("truncated", '{"manifest_number": "M-1", "permit_number": "P'),
        ("not an object", '["manifest"]'),
        ("a bare string", '"manifest"'),
        ("NaN", '{"gallons_removed": NaN}'),
        ("deeply nested", '{"measurements": ' + deeply_nested(100_000) + "}"),
        ("duplicate keys", '{"manifest_number": "A", "manifest_number": "B"}'),
        ("not UTF-8", b'{"driver_name": "\xff\xfe"}'),
        ("empty", ""),
    ],
)
def test_unreadable_bodies(world, session, name, data):
    assert_refused(raw_post(world, data), session)


@pytest.mark.parametrize(
    "field, value",
    [
        ("gallons_removed", "lots"),
        ("gallons_removed", -1),
        ("gallons_removed", 10**400),
        ("gallons_removed", 1e308 * 10),
        ("gallons_removed", float("nan")),
        ("measurements", {"fog_depth_in": float("inf"), "solids_depth_in": 1, "liquid_depth_in": 48}),
        ("gallons_removed", 1450.5),
        ("full_pump_down", "yes"),
        ("service_completed_at", "1066-10-14T09:00:00Z"),
        ("service_completed_at", "9999-12-31T23:59:59Z"),
        ("service_completed_at", "2026-13-45T99:00:00Z"),
        ("service_started_at", "x" * 10_000),
        ("driver_name", "Sam\x00Driver"),
        ("permit_number", "P\x00-1"),
        ("device_tag", "GT\x00"),
        (
            "disposal",
            {
                "site_id": "not-a-uuid\x00",
                "ticket_number": "T\x00",
                "delivered_at": "2026-06-01T10:00:00Z",
                "gallons_delivered": 1,
            },
        ),
        ("service_completed_at", "2026-06-01T10:00:00\x00Z"),
        ("service_completed_at", "2026-W22-1T10:00:00Z"),
        ("service_completed_at", "20260601T100000Z"),
        ("service_completed_at", "2026-06-01T10Z"),
        ("driver_name", "Sam\x1b[31mDriver"),
        ("driver_name", "S" * 10_000),
        ("manifest_number", ""),
        ("manifest_number", ["M-1"]),
        ("measurements", {"fog_depth_in": {"deep": True}, "solids_depth_in": 1}),
        (
            "disposal",
            {
                "site_id": "not-a-uuid",
                "ticket_number": "T",
                "delivered_at": "2026-06-01T10:00:00Z",
                "gallons_delivered": 1,
            },
        ),
        ("waste_type", "used_cooking_oil"),
    ],
)
def test_wrong_values_are_422_naming_the_field(world, session, field, value):
    body = world.body()
    body[field] = value
    response = raw_post(world, json.dumps(body, allow_nan=True) if isinstance(value, float) else json.dumps(body))
    assert_refused(response, session, status=422)
    assert any(key.split(".")[0] == field for key in response.json["errors"]), response.json


def test_unicode_is_welcome(world, session):
    body = world.body(driver_name="José Ñúñez 🚛", fse_signer_name="陳大文")
    response = raw_post(world, json.dumps(body, ensure_ascii=False).encode())
    assert response.status_code == 201
    assert response.json["manifest"]["driver_name"] == "José Ñúñez 🚛"


def test_a_body_over_the_json_limit_is_413(make_app, frozen_clock):
    from sqlalchemy.orm import Session

    from tests.conftest import https_client

    app = make_app(MAX_JSON_BYTES=4096)
    frozen_clock(NOW)
    with Session(bind=app.extensions["fogx.engine"], expire_on_commit=False) as session:
        world = build(https_client(app), session)
        body = world.body(fse_signer_name="x" * 200)
        body["padding"] = "y" * 8192
        assert_refused(raw_post(world, json.dumps(body)), session, status=413)


def tiff_bomb():
    """A TIFF header declaring 100,000 x 100,000 pixels (10 gigapixels) in a few hundred bytes."""
    entries = [
        (256, 4, 1, 100_000),
        (257, 4, 1, 100_000),
        (258, 3, 1, 8),
        (259, 3, 1, 1),
        (262, 3, 1, 1),
        (273, 4, 1, 200),
        (277, 3, 1, 1),
        (278, 4, 1, 100_000),
        (279, 4, 1, 10),
    ]
    ifd = struct.pack("<H", len(entries)) + b"".join(struct.pack("<HHII", *e) for e in entries) + b"\0\0\0\0"
    return b"II*\x00" + struct.pack("<I", 8) + ifd + b"\0" * 64


def pdf_bomb():
    """A PDF whose one page content stream inflates to gigabytes (zeros compress a thousandfold)."""
    import zlib

    stream = zlib.compress(b"0" * (220 * 1024 * 1024), 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


@pytest.mark.parametrize(
    "name, content, status",
    [
        ("html named .pdf", b"<html><script>alert(1)</script></html>", 415),
        ("an executable", b"MZ\x90\x00" + b"\x00" * 200, 415),
        ("a GIF", b"GIF89a" + b"\x00" * 64, 415),
        ("a truncated PDF", factories.pdf_bytes()[:-200], 422),
        ("a PDF with a zip appended", factories.pdf_bytes() + b"PK\x03\x04" + b"\x00" * 100, 422),
        ("a PNG with a script appended", factories.png_bytes() + b"<?php system($_GET['c']); ?>", 422),
        ("a PNG that is only a header", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, 422),
        ("a TIFF bomb", tiff_bomb(), 422),
        ("a PDF bomb", pdf_bomb(), 422),
    ],
)
def test_hostile_files(world, session, name, content, status):
    response = world.client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=factories.bearer(world.hauler_token),
        data={"manifest": json.dumps(world.body()), "documents": [(io.BytesIO(content), "scan.pdf")]},
    )
    assert_refused(response, session, status=status)


def test_submissions_are_rate_limited_per_client(make_app, frozen_clock):
    from sqlalchemy.orm import Session

    from tests.conftest import https_client

    app = make_app(SUBMISSIONS_PER_MINUTE=3, EXPORTS_PER_MINUTE=2)
    frozen_clock(NOW)
    client = https_client(app)
    with Session(bind=app.extensions["fogx.engine"], expire_on_commit=False) as session:
        world = build(client, session)
        statuses = [world.post(world.body()).status_code for _ in range(4)]
        assert statuses == [201, 201, 201, 429]
        limited = world.post(world.body())
        assert limited.mimetype == "application/problem+json" and int(limited.headers["Retry-After"]) > 0
        other = build(client, session)  # another hauler's client is not slowed down
        assert other.post(other.body()).status_code == 201
        operator = factories.token(client, *factories.oauth_client(session, role="fse", subject=[world.device.fse_id]))
        exports = [
            client.get(f"/v1/fses/{world.device.fse_id}/records", headers=factories.bearer(operator)).status_code
            for _ in range(3)
        ]
        assert exports == [200, 200, 429]


def test_security_headers_and_request_ids(world):
    response = world.post(world.body())
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Cache-Control"] == "no-store"
    problem = world.client.get("/v1/manifests/nope", headers=factories.bearer(world.hauler_token))
    assert problem.json["request_id"] == problem.headers["X-Request-Id"]


def test_logs_are_json_with_the_request_id(world, capfd):
    response = world.client.get("/health", headers={"X-Request-Id": "trace-me-42"})
    assert response.status_code == 200
    lines = [json.loads(line) for line in capfd.readouterr().err.splitlines() if line.startswith("{")]
    access = [line for line in lines if line.get("request_id") == "trace-me-42"]
    assert access and access[0]["logger"] == "fogx.access" and access[0]["status"] == 200
    assert access[0]["path"] == "/health"


def test_the_access_line_is_written_once_the_response_is_sent(world, capfd):
    """Not on the client's wait: the line comes when the server closes the response, with
    the request id, status and the duration including the sending."""
    capfd.readouterr()
    response = world.client.get("/health", headers={"X-Request-Id": "sent-then-logged"}, buffered=False)
    assert response.status_code == 200

    def access():
        lines = [json.loads(line) for line in capfd.readouterr().err.splitlines() if line.startswith("{")]
        return [line for line in lines if line.get("request_id") == "sent-then-logged"]

    assert access() == []
    response.close()
    (line,) = access()
    assert (line["logger"], line["status"], line["path"]) == ("fogx.access", 200, "/health")
    assert line["duration_ms"] >= 0
