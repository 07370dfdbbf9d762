"""Text that is no Unicode, and request lines no server should take: a 4xx problem+json each."""

import json

import pytest

from tests import factories
from tests.manifest_world import NOW, build
from tests.refusals import assert_refused, raw_post

LONE = ["\ud800", "\udc80", "a\udbffz"]


@pytest.fixture
def world(client, session, frozen_clock):
    frozen_clock(NOW)
    return build(client, session)


@pytest.mark.parametrize("value", LONE)
@pytest.mark.parametrize(
    "field",
    [
        "driver_name",
        "manifest_number",
        "permit_number",
        "device_tag",
        "vehicle_id",
        "fse_signer_name",
        "disposal.ticket_number",
    ],
)
def test_a_lone_surrogate_in_a_manifest_is_422_naming_the_field(world, session, field, value):
    body = world.body()
    if "." in field:
        outer, inner = field.split(".")
        body[outer][inner] = value
    else:
        body[field] = value
    response = raw_post(world, json.dumps(body))  # ASCII JSON: the surrogate as its \u escape
    assert_refused(response, session, status=422)
    assert field in response.json["errors"], response.json


def test_a_lone_surrogate_in_a_correction_reason_is_422_naming_it(world, session):
    filed = world.post(world.body())
    assert filed.status_code == 201
    body = world.body(manifest_number=filed.json["manifest"]["manifest_number"])
    body["reason"] = "typo \udc80"
    response = world.client.post(
        f"/v1/manifests/{filed.json['id']}/corrections",
        data=json.dumps(body),
        content_type="application/json",
        headers=factories.bearer(world.hauler_token),
    )
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    assert "reason" in response.json["errors"]


def test_a_lone_surrogate_as_a_key_or_in_the_manifest_part_is_422(world, session):
    body = world.body()
    body["\ud800"] = "x"
    response = raw_post(world, json.dumps(body))
    assert_refused(response, session, status=422)
    assert "\ud800" in response.json["errors"]
    response = world.client.post(
        "/v1/manifests",
        content_type="multipart/form-data",
        headers=factories.bearer(world.hauler_token),
        data={"manifest": json.dumps(world.body(driver_name="\udfff"))},
    )
    assert_refused(response, session, status=422)
    assert "driver_name" in response.json["errors"]


def test_surrogates_encoded_as_utf8_bytes_are_400(world, session):
    """UTF-8 has no encoding of a surrogate: such bytes are an undecodable body."""
    body = json.dumps(world.body(driver_name="@")).replace("@", "\\u0040").encode()
    body = body.replace(b"\\u0040", b"\xed\xa0\x80")
    response = raw_post(world, body)
    assert_refused(response, session, status=400)


REGISTRY_FIELDS = ["name", "address", "apn", "operator_name", "operator_email", "jurisdiction"]


@pytest.mark.parametrize("field", REGISTRY_FIELDS)
def test_a_lone_surrogate_in_a_registry_field_is_422_naming_it(client, session, field):
    factories.jurisdiction(session, "victorville")
    admin = factories.token(client, *factories.oauth_client(session, role="admin", subject=["victorville"]))
    body = {
        "name": "Mesa Grill",
        "address": "14500 Bear Valley Rd",
        "apn": "3087-211-05",
        "jurisdiction": "victorville",
        "operator_name": "Ana Ruiz",
        "operator_email": "ana@example.com",
    }
    body[field] = body[field][:3] + "\ud800" + body[field][3:]
    response = client.post(
        "/v1/fses", data=json.dumps(body), content_type="application/json", headers=factories.bearer(admin)
    )
    assert response.status_code == 422, response.get_data(as_text=True)[:300]
    assert response.mimetype == "application/problem+json"
    assert field in response.json["errors"]


def _multipart(parts, boundary=b"fogx-boundary"):
    """A multipart body built byte by byte: a test client would refuse to encode such names."""
    out = b""
    for disposition, content_type, data in parts:
        out += b"--" + boundary + b"\r\nContent-Disposition: form-data; " + disposition + b"\r\n"
        if content_type:
            out += b"Content-Type: " + content_type + b"\r\n"
        out += b"\r\n" + data + b"\r\n"
    return out + b"--" + boundary + b"--\r\n", "multipart/form-data; boundary=" + boundary.decode()


@pytest.mark.parametrize(
    "disposition",
    [b'name="documents"; filename="scan\xed\xb2\x80.png"', b"name=\"documents\"; filename*=utf-8''scan%ED%B2%80.png"],
)
def test_surrogates_in_a_query_or_a_filename_are_no_500(world, session, disposition):
    token = factories.bearer(world.hauler_token)
    listed = world.client.get("/v1/manifests?permit_number=%ED%A0%80", headers=token)
    assert listed.status_code in (200, 422), listed.get_data(as_text=True)[:300]
    body, content_type = _multipart(
        [
            (b'name="manifest"', None, json.dumps(world.body()).encode()),
            (disposition, b"image/png", factories.png_bytes()),
        ]
    )
    response = world.client.post("/v1/manifests", data=body, content_type=content_type, headers=token)
    assert response.status_code in (201, 422), response.get_data(as_text=True)[:300]
    if response.status_code == 201:
        (document,) = response.json["documents"]
        assert "\ufffd" in document["filename"]


def test_a_url_over_4096_bytes_is_a_problem_414(world):
    token = factories.bearer(world.hauler_token)
    at_limit = "/v1/manifests?permit_number=" + "P" * (4096 - len("/v1/manifests?permit_number="))
    assert len(at_limit) == 4096
    assert world.client.get(at_limit, headers=token).status_code == 422  # read, and judged by its schema
    response = world.client.get(at_limit + "P", headers=token)
    assert response.status_code == 414 and response.mimetype == "application/problem+json"
    assert response.json["type"] == "https://fogx.test/problems/uri-too-long"


def _raw(server, request: bytes):
    """The status line, headers and body gunicorn answers to `request`, sent as it is."""
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    return int(status_line.split()[1]), headers, body


# Requests gunicorn refuses before the app sees them, and what each answers: a request line
# past gunicorn's longest (8190 bytes), a header past its longest, a malformed line or header.
REFUSED = [
    (b"GET /v1/manifests?q=" + b"x" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri-too-long"),
    (b"GET /health HTTP/1.1\r\nHost: x\r\nX-Long: " + b"y" * 9000 + b"\r\n\r\n", 431, "header-fields-too-large"),
    (
        b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: 1\r\n" % n for n in range(101)) + b"\r\n",
        431,
        "header-fields-too-large",
    ),
    (b"GET /health HTTP/9.9\r\nHost: x\r\n\r\n", 400, "bad-request"),
    (b"GET /health HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", 400, "bad-request"),
    (b"POST /v1/manifests HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "bad-request"),
    (
        b"POST /v1/manifests HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: x-rot13\r\n\r\n0\r\n\r\n",
        400,
        "transfer-coding-unsupported",
    ),
    (b"GET" + b"x" * 7000 + b"\r\nHost: x\r\n\r\n", 400, "bad-request"),  # gunicorn's message repeats it
    (b"GET /health HTTP/1.1\r\nHost: x\r\nExpect: the-moon\r\n\r\n", 417, "expectation-failed"),
]


def test_under_gunicorn_a_long_request_line_is_a_problem_414(world, database_url, tmp_path):
    """The app refuses a URL longer than 4096 bytes; gunicorn reads request lines up to its
    maximum (gunicorn.conf.py) so that the app is the one to answer, and one longer still is
    gunicorn's refusal, in problem+json too (api/serving.py)."""
    import requests

    from tests.servers import Gunicorn

    server = Gunicorn(database_url, tmp_path / "objects", workers=1).start()
    try:
        for length in (4097, 6000, 8000):
            url = f"{server.base}/v1/manifests?q=" + "x" * (length - len("/v1/manifests?q="))
            response = requests.get(url, headers=factories.bearer(world.hauler_token), timeout=30)
            assert response.status_code == 414, (length, response.text[:200])
            assert response.headers["Content-Type"] == "application/problem+json"
            assert response.json()["status"] == 414
        for request, status, slug in REFUSED:
            answered, headers, body = _raw(server, request)
            assert (answered, headers["Content-Type"]) == (status, "application/problem+json"), body[:200]
            problem = json.loads(body)
            assert problem["status"] == status and problem["type"].endswith(f"/problems/{slug}")
            assert len(problem["detail"]) < 300  # what the request held is not echoed whole
            page = requests.get(f"{server.base}/problems/{slug}", headers={"Accept": "application/json"}, timeout=30)
            assert page.status_code == 200, (slug, page.text[:200])
        assert requests.get(f"{server.base}/health", timeout=30).status_code == 200  # still serving
    finally:
        server.stop()
