"""fogx served as `make run` serves it: gunicorn with the project's gunicorn.conf.py, whose
workers serve with threads, so that clients sending their bodies slowly hold threads, not the
workers every filing needs."""

import json
import os
import socket
import threading
import time

import pytest
import requests

from tests import factories
from tests.servers import (  # noqa: F401  (the fixture)
    BIN,
    ROOT,
    Gunicorn,
    MakeRun,
    post,
    world,
)


@pytest.fixture
def served(app, database_url, tmp_path):
    # After `app`: the test's database is emptied before the server starts and after it stops.
    server = MakeRun(database_url, tmp_path / "objects").start()
    yield server
    server.stop()


class Trickle(threading.Thread):
    """A filing whose body comes a byte every 0.2 s, until `stop` (bounded: it gives up after
    `seconds`). `sending` is set once its headers and a first byte are out, `ended` when it
    stops sending, for whatever reason."""

    def __init__(self, port, token, stop, seconds=15.0):
        super().__init__()
        self.port, self.token, self.stop, self.seconds = port, token, stop, seconds
        self.sending, self.ended = threading.Event(), threading.Event()

    def run(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=5) as connection:
                connection.sendall(
                    (
                        f"POST /v1/manifests HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                        f"Authorization: Bearer {self.token}\r\nContent-Type: application/json\r\n"
                        "Content-Length: 1000\r\n\r\n "
                    ).encode()
                )
                self.sending.set()
                deadline = time.monotonic() + self.seconds
                while not self.stop.is_set() and time.monotonic() < deadline:
                    try:
                        connection.sendall(b" ")
                    except OSError:  # the server gave up on it: that is its right
                        return
                    self.stop.wait(0.2)
        finally:
            self.ended.set()


def test_three_slow_bodies_do_not_stall_a_filing(served, world):
    """A filing sent while three slow bodies are still arriving is answered before any of
    them has stopped sending: it did not wait for a thread they hold."""
    stop = threading.Event()
    slow = [Trickle(served.port, world.hauler_token, stop) for _ in range(3)]
    for thread in slow:
        thread.start()
    try:
        for thread in slow:
            assert thread.sending.wait(10), "a slow client could not connect"
        response = post(served.base, world, world.body(), timeout=10)
        still_sending = [not thread.ended.is_set() for thread in slow]
        assert response.status_code == 201, response.text
        assert still_sending == [True, True, True]
    finally:
        stop.set()
        for thread in slow:
            thread.join()


def test_workers_answer_concurrent_requests_on_their_threads(served, world):
    """Requests at once are answered by the workers' threads, each with its own session."""
    answered = []
    threads = [
        threading.Thread(
            target=lambda: answered.append(
                requests.get(
                    f"{served.base}/v1/manifests", headers=factories.bearer(world.hauler_token), timeout=30
                ).status_code
            )
        )
        for _ in range(12)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answered == [200] * 12
    workers = served.worker_pids()
    tasks = [int(tid) for pid in workers for tid in os.listdir(f"/proc/{pid}/task")]
    assert len(tasks) > len(workers)  # the workers serve with threads


def test_one_request_is_logged_once_in_one_structured_line(database_url, tmp_path):
    """`make run`'s gunicorn writes no access log of its own: the app's JSON line is the one
    line a request leaves, with its method, path, status, duration and request id."""
    server = MakeRun(database_url, tmp_path / "objects")
    with open(tmp_path / "served.log", "w+") as output:
        server.start(output=output)
        try:
            answer = requests.get(
                f"{server.base}/v1/jurisdictions?count=me", timeout=10, headers={"X-Request-Id": "count-me-once"}
            )
            assert answer.status_code == 401
        finally:
            server.stop()
        output.seek(0)
        lines = output.read().splitlines()
    about = [line for line in lines if "/v1/jurisdictions" in line or "count-me-once" in line]
    assert len(about) == 1, about
    entry = json.loads(about[0])
    assert entry["request_id"] == "count-me-once" and entry["method"] == "GET"
    assert entry["path"] == "/v1/jurisdictions" and entry["status"] == 401
    assert isinstance(entry["duration_ms"], float) and entry["duration_ms"] >= 0
