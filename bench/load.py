"""The load generator: pre-encoded filings posted over non-blocking sockets, by clients or paced."""

import json
import math
import selectors
import socket
import time

from bench.harness import CLIENTS


def ingest_api(base, hauler_token, bodies):
    """`CLIENTS` connections posting `bodies`: (seconds taken, each request's latency).

    The load comes from pre-encoded requests on non-blocking sockets driven by one selector:
    the generator shares the machine's cores with the app and PostgreSQL, and an HTTP
    library's own work per request would be counted against the app.
    """
    address, pending = _requests(base, hauler_token, reversed(bodies))
    latencies = []
    selector = selectors.DefaultSelector()
    started = time.perf_counter()
    for _ in range(min(CLIENTS, len(pending))):
        _open(selector, address, pending.pop(), time.perf_counter())
    while selector.get_map():
        for key, events in selector.select():
            latency = _advance(selector, key, events)
            if latency is not None:
                latencies.append(latency)
                if pending:
                    _open(selector, address, pending.pop(), time.perf_counter())
    return time.perf_counter() - started, latencies


def ingest_paced(base, hauler_token, bodies, rate, strict=True):
    """`bodies` posted at `rate` a second, each started on its schedule whatever the ones
    before it are doing (an open loop, as dispatch systems file independently of each other):
    each request's latency in seconds from its scheduled start, so that a request that had to
    wait for the ones before it counts its wait. Unless `strict`, a filing refused (a reset
    connection, an answer other than 201) counts as an infinite latency instead of stopping."""
    address, requests_ = _requests(base, hauler_token, bodies)
    latencies = []
    selector = selectors.DefaultSelector()
    started = time.perf_counter()
    due = [started + i / rate for i in range(len(requests_))]
    sent = 0
    while sent < len(requests_) or selector.get_map():
        while sent < len(requests_) and due[sent] <= time.perf_counter():
            _open(selector, address, requests_[sent], due[sent])
            sent += 1
        timeout = max(0.0, due[sent] - time.perf_counter()) if sent < len(requests_) else None
        for key, events in selector.select(timeout):
            latency = _advance(selector, key, events, strict)
            if latency is not None:
                latencies.append(latency)
    return latencies


def _requests(base, bearer, bodies):
    """The server's address and each body as a whole HTTP request, encoded once."""
    host, port = base.removeprefix("http://").split(":")
    return (host, int(port)), [_post(host, port, "/v1/manifests", bearer, json.dumps(body).encode()) for body in bodies]


def _open(selector, address, request, since):
    """A non-blocking connection that will send `request`; its latency counts from `since`."""
    sock = socket.socket()
    sock.setblocking(False)
    sock.connect_ex(address)
    selector.register(sock, selectors.EVENT_WRITE, [request, bytearray(), since])


def _advance(selector, key, events, strict=True):
    """Send or read what the connection is ready for: its latency once the answer is whole
    (the app closes the connection after each answer: EOF ends it), else None."""
    sock, (request, answer, since) = key.fileobj, key.data
    if events & selectors.EVENT_WRITE:
        try:
            sent = sock.send(request)
        except BlockingIOError:
            return None
        except ConnectionError:
            if strict:
                raise
            selector.unregister(sock)
            sock.close()
            return math.inf
        key.data[0] = request[sent:]
        if not key.data[0]:
            selector.modify(sock, selectors.EVENT_READ, key.data)
        return None
    try:
        chunk = sock.recv(65536)
    except ConnectionError:
        if strict:
            raise
        chunk, answer = b"", bytearray()
    if chunk:
        answer += chunk
        return None
    selector.unregister(sock)
    sock.close()
    if not strict and not answer.startswith(b"HTTP/1.1 201"):
        return math.inf
    assert answer.startswith(b"HTTP/1.1 201"), bytes(answer[:2000])
    return time.perf_counter() - since


def _post(host, port, path, bearer, body):
    return (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {bearer}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
