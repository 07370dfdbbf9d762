"""Webhooks: the change feed posted to a receiver over real HTTP, signed, in order, at least
once, retried with backoff; and the URLs a webhook may not post to."""

import hashlib
import hmac
import json
import queue
import threading
import time
from datetime import UTC, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from sqlalchemy import create_engine, text

from tests import factories
from tests.conftest import https_client
from tests.manifest_world import NOW, build
from tests.spec import load_spec, schema_errors


class Receiver:
    """An HTTP server that keeps what it is sent and answers with the statuses it is told."""

    def __init__(self):
        self.received, self.answers = [], queue.Queue()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append((dict(self.headers), body))
                status = receiver.answers.get_nowait() if not receiver.answers.empty() else 204
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/fogx"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self):
        return [json.loads(body) for _, body in self.received]


@pytest.fixture
def receiver():
    made = Receiver()
    yield made
    made.server.shutdown()


@pytest.fixture
def local(make_app, frozen_clock):
    frozen_clock(NOW)
    return make_app(WEBHOOK_ALLOW_LOCAL=True)


@pytest.fixture
def world(local, session):
    return build(https_client(local), session)


def subscribe(world, url, token=None, **fields):
    response = world.client.post(
        "/v1/webhooks", json={"url": url, **fields}, headers=factories.bearer(token or world.hauler_token)
    )
    assert response.status_code == 201, response.json
    spec = load_spec()
    assert schema_errors(spec, spec["components"]["schemas"]["WebhookCreated"], response.json) == []
    return response.json


def run(app):
    result = app.test_cli_runner().invoke(args=["webhooks", "run", "--once"])
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


def shown(world, webhook):
    response = world.client.get(f"/v1/webhooks/{webhook['id']}", headers=factories.bearer(world.hauler_token))
    assert response.status_code == 200
    return response.json


def test_what_follows_the_subscription_is_posted_signed_and_in_order(local, world, receiver, frozen_clock):
    world.post(world.body(completed=NOW - timedelta(hours=80)))  # before: not sent
    webhook = subscribe(world, receiver.url, description="dispatch")
    assert webhook["secret"] and webhook["status"] == "active" and webhook["delivered"] == 0
    filed = [world.post(world.body(completed=NOW - timedelta(hours=h))).json for h in (52, 27)]
    assert run(local) == "delivered 1, failed 0, idle 0, disabled 0"

    [(headers, raw)] = receiver.received
    timestamp, mac = (part.split("=", 1)[1] for part in headers["Fogx-Signature"].split(","))
    expected = hmac.new(webhook["secret"].encode(), f"{timestamp}.".encode() + raw, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(mac, expected)
    assert abs(int(timestamp) - time.time()) < 60
    body = json.loads(raw)
    assert headers["Fogx-Webhook-Id"] == body["webhook_id"] == webhook["id"]
    assert headers["Fogx-Delivery"] == body["next_cursor"] == body["items"][-1]["cursor"]
    # What the feed gives after the webhook's cursor, entry for entry.
    feed = world.client.get(
        "/v1/changes", query_string={"cursor": webhook["cursor"]}, headers=factories.bearer(world.hauler_token)
    ).json
    assert body["items"] == feed["items"]
    assert [item["manifest_id"] for item in body["items"]] == [f["id"] for f in filed]
    spec = load_spec()
    assert schema_errors(spec, spec["components"]["schemas"]["WebhookDelivery"], body) == []

    delivered = shown(world, webhook)
    # A minute on, nothing new: the webhook is read, not written (its lease was released with
    # the delivery, and a round with nothing to send leaves it as it was).
    frozen_clock(NOW + timedelta(minutes=1))
    assert run(local) == "delivered 0, failed 0, idle 1, disabled 0"
    assert len(receiver.received) == 1
    after = shown(world, webhook)
    assert after == delivered
    assert (after["delivered"], after["cursor"], after["failures"]) == (2, body["next_cursor"], 0)
    assert "secret" not in after


@pytest.mark.postgresql_only  # a transaction of another database on the same server
def test_an_open_transaction_of_another_database_does_not_hold_deliveries_back(local, world, receiver):
    webhook = subscribe(world, receiver.url)
    engine = local.extensions["fogx.engine"]
    elsewhere = create_engine(engine.url.set(database="postgres"))
    try:
        with elsewhere.connect() as other:
            other.execute(text("SELECT pg_current_xact_id()"))  # a writer's id, held open
            filed = world.post(world.body(completed=NOW - timedelta(hours=5))).json
            assert run(local) == "delivered 1, failed 0, idle 0, disabled 0"
            other.rollback()
    finally:
        elsewhere.dispose()
    [body] = receiver.bodies()
    assert [item["manifest_id"] for item in body["items"]] == [filed["id"]]
    assert shown(world, webhook)["cursor"] == body["next_cursor"]


def test_a_failed_delivery_is_tried_again_later_with_the_same_entries(local, world, receiver, frozen_clock):
    webhook = subscribe(world, receiver.url)
    world.post(world.body())
    receiver.answers.put(500)
    assert run(local) == "delivered 0, failed 1, idle 0, disabled 0"
    failed = shown(world, webhook)
    assert failed["failures"] == 1 and failed["last_error"] == "the receiver answered 500"
    assert failed["next_attempt_at"] == (NOW + timedelta(seconds=10)).isoformat().replace("+00:00", "Z")
    assert run(local) == "delivered 0, failed 0, idle 0, disabled 0"  # not due yet
    receiver.answers.put(503)
    frozen_clock(NOW + timedelta(seconds=11))
    assert run(local).startswith("delivered 0, failed 1")
    assert shown(world, webhook)["next_attempt_at"] == (NOW + timedelta(seconds=31)).isoformat().replace(
        "+00:00", "Z"
    )  # twice as long
    world.post(world.body())  # arrives meanwhile: it goes in a later delivery, after these
    frozen_clock(NOW + timedelta(seconds=32))
    assert run(local).startswith("delivered 1")
    first, second, third = receiver.received
    assert first[1] == second[1] and first[0]["Fogx-Delivery"] == second[0]["Fogx-Delivery"]
    assert json.loads(third[1])["items"][:1] == json.loads(first[1])["items"]
    assert [len(json.loads(body)["items"]) for _, body in receiver.received] == [1, 1, 2]
    assert shown(world, webhook)["failures"] == 0


def test_a_receiver_that_is_down_is_a_failure_not_an_error(local, world, receiver):
    webhook = subscribe(world, receiver.url)
    receiver.server.shutdown()
    receiver.server.server_close()
    world.post(world.body())
    assert run(local) == "delivered 0, failed 1, idle 0, disabled 0"
    assert shown(world, webhook)["last_error"].startswith("ConnectionError")


def test_410_or_a_revoked_client_disables_the_webhook_and_so_can_its_client(local, world, receiver, session):
    gone = subscribe(world, receiver.url)
    world.post(world.body())
    receiver.answers.put(410)
    assert run(local) == "delivered 0, failed 0, idle 0, disabled 1"
    assert (shown(world, gone)["status"], shown(world, gone)["disabled_reason"]) == (
        "disabled",
        "the receiver answered 410 Gone",
    )

    kept = subscribe(world, receiver.url)
    stopped = world.client.post(f"/v1/webhooks/{kept['id']}/disable", headers=factories.bearer(world.hauler_token))
    assert stopped.status_code == 200 and stopped.json["status"] == "disabled"

    auditor_id, secret = factories.oauth_client(session, role="auditor", subject=["victorville"])
    auditor = factories.token(world.client, auditor_id, secret)
    audits = subscribe(world, receiver.url, token=auditor)
    revoked = local.test_cli_runner().invoke(args=["clients", "revoke", auditor_id])
    assert revoked.exit_code == 0, revoked.output
    world.post(world.body())
    assert run(local) == "delivered 0, failed 0, idle 0, disabled 1"
    assert len(receiver.received) == 1  # the 410 only
    # Each client sees its own webhooks only.
    listed = world.client.get("/v1/webhooks", headers=factories.bearer(world.hauler_token)).json["items"]
    assert [w["id"] for w in listed] == [gone["id"], kept["id"]]
    other = factories.token(world.client, *factories.oauth_client(session, role="auditor", subject=["victorville"]))
    assert world.client.get(f"/v1/webhooks/{audits['id']}", headers=factories.bearer(other)).status_code == 404
    assert world.client.get("/v1/webhooks", headers=factories.bearer(other)).json["items"] == []


def test_a_webhook_can_start_from_a_cursor_the_feed_gave(local, world, receiver):
    first = world.post(world.body(completed=NOW - timedelta(hours=30))).json
    world.post(world.body())
    feed = world.client.get("/v1/changes", headers=factories.bearer(world.hauler_token)).json["items"]
    assert feed[0]["manifest_id"] == first["id"]
    subscribe(world, receiver.url, cursor=feed[0]["cursor"])
    run(local)
    assert [item["cursor"] for item in receiver.bodies()[0]["items"]] == [feed[1]["cursor"]]


def test_the_urls_a_webhook_may_not_post_to(make_app, session):
    app = make_app()  # production settings: https to public addresses only
    client = https_client(app)
    world = build(client, session)
    refused = {
        "http://203.0.113.7/hook": "Must be https",
        "https://127.0.0.1/hook": "not a public address",
        "https://localhost/hook": "not a public address",
        "https://10.1.2.3/hook": "not a public address",
        "https://[::1]/hook": "not a public address",
        "https://169.254.169.254/latest": "not a public address",
        "https://user:pw@93.184.216.34/hook": "credentials",
        "ftp://93.184.216.34/hook": "absolute https URL",
        "hook": "absolute https URL",
        "https://no-such-host.invalid/hook": "does not resolve",
    }
    for url, reason in refused.items():
        response = client.post("/v1/webhooks", json={"url": url}, headers=factories.bearer(world.hauler_token))
        assert response.status_code == 422 and response.mimetype == "application/problem+json", url
        assert reason in response.json["errors"]["url"][0], (url, response.json)
    for body in (
        {"url": "https://93.184.216.34/hook", "colour": "red"},
        {"url": "https://93.184.216.34/hook", "cursor": "nope"},
        {},
    ):
        assert client.post("/v1/webhooks", json=body, headers=factories.bearer(world.hauler_token)).status_code == 422
    made = client.post(
        "/v1/webhooks", json={"url": "https://93.184.216.34/hook"}, headers=factories.bearer(world.hauler_token)
    )
    assert made.status_code == 201 and made.headers["Location"].endswith(made.json["id"])


# Addresses `ipaddress`'s is_global calls global that lead to no public receiver.
NOT_PUBLIC = [
    "64:ff9b::a00:1",
    "64:ff9b::7f00:1",
    "64:ff9b::808:808",
    "64:ff9b:1::a00:1",
    "2002:a00:1::1",
    "2002:7f00:1::1",
    "192.0.0.8",
    "224.0.0.1",
    "239.255.255.250",
    "ff02::1",
    "ff0e::1",
]


@pytest.mark.parametrize("address", NOT_PUBLIC)
def test_translated_special_and_multicast_addresses_are_refused(make_app, session, address):
    """NAT64 and 6to4 addresses carry an IPv4 address a translator would reach (10.0.0.1,
    127.0.0.1 here); 192.0.0.8 and multicast groups are no receiver on the internet."""
    client = https_client(make_app())
    world = build(client, session)
    host = f"[{address}]" if ":" in address else address
    response = client.post(
        "/v1/webhooks", json={"url": f"https://{host}/hook"}, headers=factories.bearer(world.hauler_token)
    )
    assert response.status_code == 422 and response.mimetype == "application/problem+json"
    assert "not a public address" in response.json["errors"]["url"][0], response.json


@pytest.mark.parametrize("address", ["64:ff9b::a00:1", "2002:7f00:1::1", "239.255.255.250"])
def test_a_delivery_is_not_posted_to_a_host_that_turned_translated_or_multicast(
    make_app, world, receiver, monkeypatch, address
):
    """A host public at registration that resolves to such an address at delivery is a failed
    delivery, and nothing is sent."""
    import socket

    port = receiver.server.server_port
    real = socket.getaddrinfo

    def resolver(host, *args, **kwargs):
        # This test's network: hooks.test is `address` now.
        if host == "hooks.test":
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))]
        return real(host, *args, **kwargs)

    hook = subscribe(world, f"http://hooks.test:{port}/fogx")  # the local app admits a plain http URL
    world.post(world.body())
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    assert run(make_app(WEBHOOK_ALLOW_LOCAL=False)) == "delivered 0, failed 1, idle 0, disabled 0"
    assert receiver.received == []
    assert "not a public address" in shown(world, hook)["last_error"]


def test_each_worker_process_delivers_without_an_operator(make_app, session, receiver):
    app = make_app(WEBHOOK_ALLOW_LOCAL=True, WEBHOOK_INTERVAL_SECONDS=1)
    world = build(https_client(app), session)
    subscribe(world, receiver.url)
    filed = world.post(world.body())
    assert filed.status_code == 201
    deadline = time.monotonic() + 15
    while not receiver.received and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [item["manifest_id"] for item in receiver.bodies()[0]["items"]] == [filed.json["id"]]


def test_a_worker_delivers_once_as_it_starts_serving_then_every_interval(make_app, session, receiver):
    """The first round runs as the process takes its first request, not an interval later: the
    connection it needs is opened then, not in the middle of a load (api/worker.py)."""
    quiet = make_app(WEBHOOK_ALLOW_LOCAL=True)  # no threads: it only subscribes and files
    world = build(https_client(quiet), session)
    subscribe(world, receiver.url)
    filed = world.post(world.body())
    assert filed.status_code == 201
    serving = make_app(WEBHOOK_ALLOW_LOCAL=True, WEBHOOK_INTERVAL_SECONDS=3600)
    assert https_client(serving).get("/health").status_code == 200
    deadline = time.monotonic() + 15
    while not receiver.received and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [item["manifest_id"] for item in receiver.bodies()[0]["items"]] == [filed.json["id"]]


def _signed_with(headers, raw, secret):
    timestamp, mac = (part.split("=", 1)[1] for part in headers["Fogx-Signature"].split(","))
    return hmac.compare_digest(
        mac, hmac.new(secret.encode(), f"{timestamp}.".encode() + raw, hashlib.sha256).hexdigest()
    )


def test_no_secret_is_stored_and_every_process_with_the_key_signs_alike(
    make_app, local, world, receiver, session, tmp_path
):
    from sqlalchemy import text

    webhook = subscribe(world, receiver.url)
    # The row holds no secret: a copy of the database cannot sign a delivery.
    assert session.execute(text("SELECT secret FROM webhooks")).scalars().all() == [None]
    key_file = tmp_path / "webhook-signing.key"
    assert key_file.stat().st_mode & 0o777 == 0o600 and len(key_file.read_text()) == 64
    world.post(world.body())
    # Another process with the same key (here: the same file) signs as the one that made it.
    assert run(make_app(WEBHOOK_ALLOW_LOCAL=True)) == "delivered 1, failed 0, idle 0, disabled 0"
    [(headers, raw)] = receiver.received
    assert _signed_with(headers, raw, webhook["secret"])
    # With another key, the signature is another: receivers would refuse it.
    world.post(world.body(completed=NOW - timedelta(hours=30)))
    assert run(make_app(WEBHOOK_ALLOW_LOCAL=True, WEBHOOK_SIGNING_KEY="k" * 32)).startswith("delivered 1")
    headers, raw = receiver.received[-1]
    assert not _signed_with(headers, raw, webhook["secret"])


def test_a_webhook_made_while_secrets_were_stored_keeps_its_own(local, world, receiver, session):
    from sqlalchemy import text

    webhook = subscribe(world, receiver.url)
    session.execute(text("UPDATE webhooks SET secret = :old"), {"old": "a" * 64})
    session.commit()
    world.post(world.body())
    assert run(local).startswith("delivered 1")
    [(headers, raw)] = receiver.received
    assert _signed_with(headers, raw, "a" * 64) and not _signed_with(headers, raw, webhook["secret"])


def test_a_signing_key_too_short_is_refused_at_start(make_app):
    from api.config import ConfigError

    with pytest.raises(ConfigError, match="WEBHOOK_SIGNING_KEY"):
        make_app(WEBHOOK_SIGNING_KEY="short")


def test_a_delivery_goes_to_the_address_its_host_was_checked_at(make_app, world, receiver, monkeypatch):
    """A name that resolves to a public address when checked and to a private one a moment
    later (DNS rebinding) must not lead the delivery to the private one."""
    import socket

    port = receiver.server.server_port
    real = socket.getaddrinfo
    asked = []

    def resolver(host, *args, **kwargs):
        # This test's network: hooks.test is 8.8.8.8 at first, then 127.0.0.2, where nothing
        # listens; and 8.8.8.8 is reached at the receiver.
        if host == "hooks.test":
            asked.append(host)
            host = "8.8.8.8" if len(asked) == 1 else "127.0.0.2"
            return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (host, port))]
        if host == "8.8.8.8":
            return real("127.0.0.1", *args, **kwargs)
        return real(host, *args, **kwargs)

    subscribe(world, f"http://hooks.test:{port}/fogx")  # the local app admits a plain http URL
    world.post(world.body())
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    assert run(make_app(WEBHOOK_ALLOW_LOCAL=False)) == "delivered 1, failed 0, idle 0, disabled 0"
    assert asked == ["hooks.test"]  # resolved once, checked, and connected to
    [(headers, _)] = receiver.received
    assert headers["Host"] == f"hooks.test:{port}"


def _certificate(tmp_path, name):
    """A CA's file, and a certificate for `name` it signed with its key (PEM files)."""
    from datetime import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    def made(subject, issuer, key, signer, *, ca, names=()):
        now = datetime.now(UTC)
        builder = (
            x509.CertificateBuilder()
            .subject_name(subject)
            .issuer_name(issuer)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if names:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False
            )
        return builder.sign(signer, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fogx test CA")])
    ca = made(ca_name, ca_name, ca_key, ca_key, ca=True)
    leaf = made(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]), ca_name, key, ca_key, ca=False, names=[name]
    )
    pem = serialization.Encoding.PEM
    (tmp_path / "ca.pem").write_bytes(ca.public_bytes(pem))
    (tmp_path / "leaf.pem").write_bytes(
        leaf.public_bytes(pem) + key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return tmp_path / "ca.pem", tmp_path / "leaf.pem"


@pytest.mark.parametrize("certified", ["hooks.test", "elsewhere.test"])
def test_over_tls_the_checked_address_must_still_prove_the_hosts_name(
    make_app, world, receiver, monkeypatch, tmp_path, certified
):
    import socket
    import ssl

    from sqlalchemy import text

    ca, leaf = _certificate(tmp_path, certified)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(leaf)
    receiver.server.socket = context.wrap_socket(receiver.server.socket, server_side=True)
    port = receiver.server.server_port
    real = socket.getaddrinfo
    names = []

    def resolver(host, *args, **kwargs):
        if host == "hooks.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("8.8.8.8", port))]
        return real("127.0.0.1" if host == "8.8.8.8" else host, *args, **kwargs)

    original_wrap = ssl.SSLContext.wrap_socket

    def wrap(self, sock, *args, server_hostname=None, **kwargs):
        names.append(server_hostname)
        return original_wrap(self, sock, *args, server_hostname=server_hostname, **kwargs)

    subscribe(world, f"http://127.0.0.1:{port}/fogx")
    world.session.execute(text("UPDATE webhooks SET url = :url"), {"url": f"https://hooks.test:{port}/fogx"})
    world.session.commit()
    world.post(world.body())
    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    monkeypatch.setattr(ssl.SSLContext, "wrap_socket", wrap)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(ca))
    outcome = run(make_app(WEBHOOK_ALLOW_LOCAL=False))
    # The client named hooks.test to the server (SNI) while connecting to the checked address.
    assert "hooks.test" in names
    if certified == "hooks.test":
        assert outcome == "delivered 1, failed 0, idle 0, disabled 0" and len(receiver.received) == 1
    else:  # a certificate for another name is refused: the address alone proves nothing
        assert outcome == "delivered 0, failed 1, idle 0, disabled 0" and receiver.received == []
