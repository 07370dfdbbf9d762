"""`make bench`: fogx against the limits of the parts underneath, on PostgreSQL and S3.

Every figure is printed with the limit measured in the same run and their ratio; the table is
written into bench/README.md with the date and the machine, and every figure is appended to
bench/runs.csv (`bench.runs`).

    BENCH_DATABASE_URL   an empty database to build the city in (default: fogx_bench on the
                         local PostgreSQL, dropped and created); a copy of it as it stands at
                         100,000 manifests is made beside it (its name + `_at_100000`, by a
                         role that may create databases) and dropped at the end
    BENCH_SMALL=1        a smaller city, for trying the harness out
"""
import gc
import hashlib
import http.client
import io
import json
import os
import platform
import selectors
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections import namedtuple
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit

import boto3
import psycopg
import requests
from sqlalchemy import create_engine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import runs  # noqa: E402
from bench.city import City, depths, iso  # noqa: E402
from domain import chain  # noqa: E402
from storage import migrate  # noqa: E402
from storage.models import new_id  # noqa: E402

BIN = Path(sys.executable).parent
SMALL = os.environ.get("BENCH_SMALL") == "1"
DEVICES = 3_000 if SMALL else 20_000  # enough that no two rounds or stages service one device
STAGES = (10_000, 50_000) if SMALL else (100_000, 1_000_000)
INGEST_N = 300 if SMALL else 1_500
CLIENTS = 8
WARM_UP = 4 * CLIENTS
WARM_UP_UPLOADS = 8
results = []
figures = []  # (figure, value) for bench/runs.csv


def say(message):
    print(message, flush=True)


def record(name, value, unit, limit=None, limit_name="", target=""):
    ratio = f"{value / limit:.2f}" if limit else ""
    figures.extend(runs.figures_of(name, value, unit, limit, limit_name))
    results.append((name, f"{value:,.1f} {unit}", f"{limit:,.1f} {unit} ({limit_name})" if limit else "",
                    ratio, target))
    say(f"  {name}: {value:,.1f} {unit}" + (f"  limit {limit:,.1f} ({limit_name})  ratio {ratio}" if limit else ""))


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url):
    for _ in range(300):
        try:
            requests.get(url, timeout=5)
            return
        except requests.RequestException:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer")


def database():
    url = os.environ.get("BENCH_DATABASE_URL")
    if url:
        return url
    url = "postgresql://postgres@127.0.0.1:5432/fogx_bench"
    create(url)
    return url


def create(dsn, template=None):
    """The database of `dsn` made anew: empty, or a copy of the database `template` (a URL on
    the same server, which nothing may be connected to meanwhile)."""
    drop(dsn)
    with _server(dsn) as conn:
        conn.execute(f'CREATE DATABASE "{_name(dsn)}"' + (f' TEMPLATE "{_name(template)}"' if template else ""))


def drop(dsn):
    with _server(dsn) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{_name(dsn)}" WITH (FORCE)')


def sibling(dsn, suffix):
    """The URL of a database beside the one of `dsn` on the same server, its name + `suffix`."""
    return urlsplit(dsn)._replace(path=f"/{_name(dsn)}{suffix}").geturl()


def _name(dsn):
    return urlsplit(dsn).path.lstrip("/")


def _server(dsn):
    return psycopg.connect(urlsplit(dsn)._replace(path="/postgres").geturl(), autocommit=True)


def start_s3():
    port = free_port()
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"}
    process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    wait_for(endpoint)
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-west-1",
                          aws_access_key_id="bench", aws_secret_access_key="bench")
    client.create_bucket(Bucket="fogx-bench", ObjectLockEnabledForBucket=True,
                         CreateBucketConfiguration={"LocationConstraint": "us-west-1"})
    return process, endpoint, client


class Server:
    # One sync worker per core, as README.md tells operators: a filing is CPU-bound, and more
    # workers than cores only add switching.
    # `root`: the checkout whose code it serves (bench/ingest.py and bench/uploads.py compare two).
    def __init__(self, dsn, endpoint, workers=os.cpu_count(), root=ROOT):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "DATABASE_URL": dsn, "STORAGE_BACKEND": "s3", "S3_ENDPOINT_URL": endpoint,
               "S3_BUCKET": "fogx-bench", "S3_REGION": "us-west-1", "AWS_ACCESS_KEY_ID": "bench",
               "AWS_SECRET_ACCESS_KEY": "bench", "SUBMISSIONS_PER_MINUTE": "1000000",
               "EXPORTS_PER_MINUTE": "1000", "TOKEN_TTL_SECONDS": "7200", "MAX_UPLOAD_BYTES": str(200 * 2 ** 20)}
        self.process = subprocess.Popen(
            [str(BIN / "gunicorn"), "--bind", f"127.0.0.1:{self.port}", "--workers", str(workers),
             "--timeout", "300", "--error-logfile", "/dev/null", "wsgi:app"],
            cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for(f"{self.base}/health")

    def worker_pids(self):
        out = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [int(pid) for pid in out.split()]

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=60)


def peak_rss_mb(pids):
    """The largest high-water mark of resident memory among the workers (VmHWM)."""
    peaks = []
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]) / 1024)
    return max(peaks)


def cpu_seconds(pids):
    """The user and system CPU time processes `pids` have used, in seconds."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


ProcStat = namedtuple("ProcStat", "busy stolen ticks")


def proc_stat():
    """The whole machine's account from /proc/stat, over all cores: seconds spent working
    (user, system, interrupts; not idle, not waiting on the disk, not stolen by the
    hypervisor), and the ticks the hypervisor took of all ticks."""
    user, nice, system, idle, iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    busy = user + nice + system + irq + softirq
    return ProcStat(busy / os.sysconf("SC_CLK_TCK"), steal, busy + idle + iowait + steal)


class CPU:
    """Where the machine's CPU went while blocks ran: processes `pids`' own, this process's
    (the load generator, or the plain loop), and the rest (PostgreSQL, the kernel's share of
    the network, anything else running), each in ms an item; and the share of the cores'
    time the hypervisor took (a virtual machine's cores are not all its own: a slow spell
    with much taken is the host's, not the app's)."""

    def __init__(self, pids=()):
        self.pids = pids
        self.spent = {"processes": 0.0, "own": 0.0, "rest": 0.0}
        self.count = 0
        self.seconds = 0.0  # wall time the blocks took
        self.stolen = self.ticks = 0

    def measure(self, block, count):
        """`block()`'s result; what it used is added to the account, for `count` items."""
        before = (cpu_seconds(self.pids), time.process_time(), proc_stat())
        started = time.perf_counter()
        result = block()
        self.seconds += time.perf_counter() - started
        after = proc_stat()
        processes, own = cpu_seconds(self.pids) - before[0], time.process_time() - before[1]
        self.spent["processes"] += processes
        self.spent["own"] += own
        self.spent["rest"] += max(0.0, after.busy - before[2].busy - processes - own)
        self.stolen += after.stolen - before[2].stolen
        self.ticks += after.ticks - before[2].ticks
        self.count += count
        return result

    def ms(self, part):
        return self.spent[part] / self.count * 1000


def stolen_percent(*accounts):
    """The share of the cores' time the hypervisor took over the accounts' blocks, in %."""
    ticks = sum(account.ticks for account in accounts)
    return 100 * sum(account.stolen for account in accounts) / ticks if ticks else 0.0


def clients(dsn, city):
    """OAuth clients for one hauler, the Victorville auditor, an FSE, and each disposal site
    (made before the city's history, so that every site reports all of it, and posts none of
    it: the reconciliation's worst case)."""
    from api import create_app
    from domain import clock
    from services.clients import create_client
    from storage.db import db

    app = create_app({"DATABASE_URL": dsn})
    with app.app_context():
        with clock.frozen_at(datetime(2000, 1, 1, tzinfo=timezone.utc)):
            for n, site_id in enumerate(city.sites):
                create_client(db.session, role="site", subject=[str(site_id)], client_id=f"bench-site-{n}")
        hauler_id = city.haulers[0][0]
        create_client(db.session, role="hauler", subject=[str(hauler_id)], client_id="bench-hauler",
                      client_secret="bench-hauler-secret")
        create_client(db.session, role="auditor", subject=["victorville"], client_id="bench-auditor",
                      client_secret="bench-auditor-secret")
        fse_id = city.devices[0][1]
        create_client(db.session, role="fse", subject=[str(fse_id)], client_id="bench-fse",
                      client_secret="bench-fse-secret")
    app.extensions["fogx.engine"].dispose()


def token(base, name):
    response = requests.post(f"{base}/oauth/token", data={"grant_type": "client_credentials"},
                             auth=(f"bench-{name}", f"bench-{name}-secret"), timeout=10)
    response.raise_for_status()
    return response.json()["access_token"]


def manifest_bodies(city, n, prefix, offset=0):
    """`n` fresh services of distinct devices (from `offset` on), as a dispatch app files them."""
    now = datetime.now(timezone.utc)
    vehicles = city.haulers[0][1]
    bodies = []
    for i in range(n):
        device = city.devices[(offset + i) % len(city.devices)]
        _, _, _, _, kind, capacity, permit_number, tag, _ = device
        completed = now - timedelta(hours=2, minutes=i % 600)
        bodies.append({
            "manifest_number": f"{prefix}-{i:06d}", "permit_number": permit_number, "device_tag": tag,
            "vehicle_id": vehicles[i % 3], "driver_name": "Driver", "fse_signer_name": "Signer",
            "service_started_at": iso(completed - timedelta(hours=1)), "service_completed_at": iso(completed),
            "waste_type": "grease_interceptor_waste" if kind == "interceptor" else "grease_trap_waste",
            "gallons_removed": capacity, "decant_returned_gallons": 0, "full_pump_down": True, "measurements": None,
            "disposal": {"site_id": str(city.sites[i % len(city.sites)]), "ticket_number": f"{prefix}-T-{i}",
                         "delivered_at": iso(completed + timedelta(minutes=30)), "gallons_delivered": capacity},
        })
    return bodies


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


class Collections:
    """The longest pause of this process's garbage collector while in the block, in ms: the
    load generator's own stalls, which a paced run would count as the server's latency."""

    def __init__(self):
        self.longest = 0.0
        self._started = None

    def _note(self, phase, _info):
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            self.longest = max(self.longest, (time.perf_counter() - self._started) * 1000)

    def __enter__(self):
        gc.callbacks.append(self._note)
        return self

    def __exit__(self, *_):
        gc.callbacks.remove(self._note)


PACED_GC = {}


def ingest_paced(base, hauler_token, bodies, rate):
    """`bodies` posted at `rate` a second, each started on its schedule whatever the ones
    before it are doing (an open loop, as dispatch systems file independently of each other):
    each request's latency in seconds from its scheduled start, so that a request that had to
    wait for the ones before it counts its wait."""
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
            latency = _advance(selector, key, events)
            if latency is not None:
                latencies.append(latency)
    return latencies


def _requests(base, bearer, bodies):
    """The server's address and each body as a whole HTTP request, encoded once."""
    host, port = base.removeprefix("http://").split(":")
    return (host, int(port)), [_post(host, port, "/v1/manifests", bearer, json.dumps(body).encode())
                               for body in bodies]


def _open(selector, address, request, since):
    """A non-blocking connection that will send `request`; its latency counts from `since`."""
    sock = socket.socket()
    sock.setblocking(False)
    sock.connect_ex(address)
    selector.register(sock, selectors.EVENT_WRITE, [request, bytearray(), since])


def _advance(selector, key, events):
    """Send or read what the connection is ready for: its latency once the answer is whole
    (the app closes the connection after each answer: EOF ends it), else None."""
    sock, (request, answer, since) = key.fileobj, key.data
    if events & selectors.EVENT_WRITE:
        try:
            sent = sock.send(request)
        except BlockingIOError:
            return None
        key.data[0] = request[sent:]
        if not key.data[0]:
            selector.modify(sock, selectors.EVENT_READ, key.data)
        return None
    chunk = sock.recv(65536)
    if chunk:
        answer += chunk
        return None
    selector.unregister(sock)
    sock.close()
    assert answer.startswith(b"HTTP/1.1 201"), bytes(answer[:2000])
    return time.perf_counter() - since


def _post(host, port, path, bearer, body):
    return (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {bearer}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            ).encode() + body


def ingest_plain(dsn, city, bodies, beside, client_pk):
    """The limit: the rows the API writes for a filing (manifest, revision, findings, change) by a plain
    psycopg loop, a transaction each; the seconds it takes. `beside`: for each body, what the
    API made of a filing beside it (`Filed`: whether it qualifies, its findings);
    `client_pk`: the OAuth client the revisions are filed by."""
    devices = {(d[6], d[7]): d for d in city.devices}
    hauler_id = city.haulers[0][0]
    with psycopg.connect(dsn) as conn:
        # The names a revision keeps, read once as the API's process keeps them.
        hauler = conn.execute("SELECT h.name, (SELECT l.licence_number FROM hauler_licences l WHERE l.hauler_id = h.id"
                              " ORDER BY l.effective_on DESC, l.recorded_at DESC LIMIT 1) FROM haulers h WHERE h.id = %s",
                              (hauler_id,)).fetchone()
        sites = {str(row[0]): row[1:] for row in conn.execute("SELECT id, name, address FROM disposal_sites")}
        started = time.perf_counter()
        for body, filed in zip(bodies, beside, strict=True):
            device_id, fse_id, permit_id, jid, *_ = devices[(body["permit_number"], body["device_tag"])]
            manifest_id, revision_id, received = new_id(), new_id(), datetime.now(timezone.utc)
            document = {"manifest_id": str(manifest_id), "hauler_id": str(hauler_id), "revision": 1,
                        "received_at": iso(received), "reason": None, "previous_sha256": None, "manifest": body}
            with conn.transaction():
                conn.execute("INSERT INTO manifests (id, hauler_id, manifest_number, jurisdiction_id, fse_id,"
                             " device_id, permit_id, current_revision, created_at) VALUES (%s,%s,%s,%s,%s,%s,%s,1,%s)",
                             (manifest_id, hauler_id, "P" + body["manifest_number"], jid, fse_id, device_id,
                              permit_id, received))
                conn.execute(
                    "INSERT INTO manifest_revisions (id, manifest_id, revision, body, sha256, received_at,"
                    " submitted_by_client_id, device_id, service_started_at, service_completed_at, waste_type,"
                    " gallons_removed, decant_returned_gallons, full_pump_down, vehicle_id, disposal_site_id,"
                    " disposal_ticket_number, disposal_delivered_at, disposal_gallons_delivered, fog_depth_in,"
                    " solids_depth_in, qualifying, hauler_name, hauler_licence_number, disposal_site_name,"
                    " disposal_site_address)"
                    " VALUES (%s,%s,1,%s,%s,%s,%s,%s,%s,%s,%s,%s,0,true,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                    (revision_id, manifest_id, json.dumps(document), chain.seal(document), received, client_pk,
                     device_id, body["service_started_at"], body["service_completed_at"], body["waste_type"],
                     body["gallons_removed"], body["vehicle_id"], body["disposal"]["site_id"],
                     body["disposal"]["ticket_number"], body["disposal"]["delivered_at"],
                     body["disposal"]["gallons_delivered"], *depths(body), filed.qualifying, *hauler,
                     *sites[body["disposal"]["site_id"]]))
                for code, severity, message, citation in filed.findings:
                    conn.execute("INSERT INTO findings (id, revision_id, code, severity, message, citation,"
                                 " raised_at) VALUES (%s,%s,%s,%s,%s,%s,%s)",
                                 (new_id(), revision_id, code, severity, message, citation, received))
                conn.execute("INSERT INTO changes (kind, at, manifest_id, manifest_number, revision, hauler_id,"
                             " fse_id, jurisdiction_id, detail) VALUES ('manifest.filed',%s,%s,%s,1,%s,%s,%s,%s)",
                             (received, manifest_id, "P" + body["manifest_number"], hauler_id, fse_id, jid,
                              json.dumps({"findings": sorted(f[0] for f in filed.findings)})))
        return time.perf_counter() - started


Filed = namedtuple("Filed", "qualifying findings")


def api_filed(dsn, hauler_id, bodies):
    """What the API made of `bodies` filed by `hauler_id`, each a `Filed`: whether the revision
    qualifies, and its findings (code, severity, message, citation)."""
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT m.manifest_number, r.qualifying, f.code, f.severity, f.message, f.citation FROM manifests m"
            " JOIN manifest_revisions r ON r.manifest_id = m.id LEFT JOIN findings f ON f.revision_id = r.id"
            " WHERE m.hauler_id = %s AND m.manifest_number = ANY(%s) ORDER BY f.code",
            (hauler_id, [body["manifest_number"] for body in bodies])).fetchall()
    filed = {}
    for number, qualifying, *finding in rows:
        filed.setdefault(number, Filed(qualifying, []))
        if finding[0] is not None:
            filed[number].findings.append(tuple(finding))
    return [filed[body["manifest_number"]] for body in bodies]


def client_pk(dsn, client_id):
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT id FROM oauth_clients WHERE client_id = %s", (client_id,)).fetchone()[0]


def ingest(server, hauler_token, dsn, city, stage, rounds=3):
    """The API and the plain loop in alternating rounds, so that both meet this shared machine
    in the same moods, then the API paced at half the plain loop's rate: (API manifests/s, p50
    ms, p99 ms, plain loop manifests/s, the paced rate, its p50 ms and p99 ms, and the `CPU`
    each side's rounds used).

    Each round services devices no other round or stage touches: a real dispatch day.
    """
    size = INGEST_N // rounds
    # Warm the workers first (statements compiled and prepared, registry facts read): the
    # figures are for a service that has been up for a while, not one still starting.
    ingest_api(server.base, hauler_token, manifest_bodies(
        city, WARM_UP, f"W{stage}", offset=(2 * len(STAGES) + 1) * INGEST_N + stage * WARM_UP))
    api_seconds = plain_seconds = 0.0
    latencies = []
    api_cpu, plain_cpu = CPU(server.worker_pids()), CPU()
    filer = client_pk(dsn, "bench-hauler")
    for n in range(rounds):
        bodies = manifest_bodies(city, size, f"S{stage}-{n}", offset=(2 * stage + 1) * INGEST_N + n * size)
        seconds, each = api_cpu.measure(lambda: ingest_api(server.base, hauler_token, bodies), size)
        api_seconds += seconds
        latencies += each
        # The plain loop writes what the API wrote: each of its manifests as the API made the one
        # filed beside it in the round (qualifying or not, its findings).
        beside = api_filed(dsn, city.haulers[0][0], bodies)
        rows = manifest_bodies(city, size, f"P{stage}-{n}", offset=(2 * stage + 2) * INGEST_N + n * size)
        plain_seconds += plain_cpu.measure(lambda: ingest_plain(dsn, city, rows, beside, filer), size)
    latencies.sort()
    count = size * rounds
    rate, plain = count / api_seconds, count / plain_seconds
    # Then the latency at the load the target names, half the plain loop's rate, offered at an
    # even pace: with the clients above always waiting on an answer, their latency is mostly
    # how many of them queue for two workers (Little's law), whatever the app does.
    paced_cpu = CPU(server.worker_pids())
    with Collections() as collections:
        paced = sorted(paced_cpu.measure(lambda: ingest_paced(server.base, hauler_token, manifest_bodies(
            city, 2 * size, f"Q{stage}", offset=(2 * len(STAGES) + 2) * INGEST_N + stage * 2 * size), plain / 2),
            2 * size))
    PACED_GC[stage] = collections.longest
    return (rate, _percentile(latencies, 50), _percentile(latencies, 99), plain, plain / 2,
            _percentile(paced, 50), _percentile(paced, 99), api_cpu, plain_cpu, paced_cpu)


def growth(first, last, city, rounds=10):
    """Milliseconds per manifest ingested through the API at the first stage's size and at the
    last's (servers on a copy of the database as it stood then, and on the grown one), the
    same filings posted to each in turns, each round first to the one that went second in the
    round before. The stages' own figures are minutes apart, and a machine's speed can move
    between them by more than the database's size moves the filing. (The missed-services
    answer is not compared so: asked of both in turns, the two databases' pages evict each
    other's from the server's shared buffers, which the larger one pays for.)"""
    size = INGEST_N // rounds
    base = (2 * len(STAGES) + 4) * INGEST_N
    bearers = {server: token(server.base, "hauler") for server in (first, last)}
    seconds = {first: 0.0, last: 0.0}
    warm = manifest_bodies(city, WARM_UP, "GW", offset=base + INGEST_N)
    for server, bearer in bearers.items():
        ingest_api(server.base, bearer, warm)
    for n in range(rounds):
        bodies = manifest_bodies(city, size, f"G{n}", offset=base + n * size)
        for server in ((first, last) if n % 2 == 0 else (last, first)):
            seconds[server] += ingest_api(server.base, bearers[server], bodies)[0]
    return seconds[first] / (size * rounds) * 1000, seconds[last] / (size * rounds) * 1000


def _percentile(ordered, p):
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))] * 1000


# The question the API answers, field for field, as one statement written by hand: each
# device's last qualifying service up to the end of its city's day by one probe of the partial
# index (dated on that local day), its permit's status on the day and whether it still holds
# (not revoked, not expired), the last hauler's name, and where it stands (overdue within the
# grace, missed beyond it, never serviced).
HAND_WRITTEN_AS_OF = """
SELECT f.id AS fse_id, f.name AS fse_name, f.address, j.code AS jurisdiction, p.permit_number,
       CASE WHEN p.issued_on > %(as_of)s THEN 'not_issued'
            ELSE COALESCE(NULLIF((SELECT s.status FROM permit_status_changes s
                                  WHERE s.permit_id = p.id AND s.effective_on <= %(as_of)s
                                  ORDER BY s.effective_on DESC, s.recorded_at DESC LIMIT 1), 'active'),
                          CASE WHEN p.expires_on < %(as_of)s THEN 'expired' ELSE 'active' END)
       END AS permit_status,
       d.id AS device_id, d.tag AS device_tag, d.kind AS device_kind, freq.days AS frequency_days, j.grace_days,
       last.service_on AS last_service_on, last.manifest_id AS last_manifest_id,
       last.manifest_number AS last_manifest_number, last.hauler_id AS last_hauler_id,
       (SELECT h.name FROM haulers h WHERE h.id = last.hauler_id) AS last_hauler_name,
       COALESCE(last.service_on, p.issued_on) + freq.days AS due_on,
       %(as_of)s::date - (COALESCE(last.service_on, p.issued_on) + freq.days) AS days_overdue,
       CASE WHEN last.manifest_id IS NULL THEN 'never_serviced'
            WHEN %(as_of)s::date - (COALESCE(last.service_on, p.issued_on) + freq.days) <= j.grace_days
            THEN 'overdue' ELSE 'missed' END AS status
FROM devices d JOIN fses f ON f.id = d.fse_id JOIN permits p ON p.id = d.permit_id
JOIN jurisdictions j ON j.id = f.jurisdiction_id
CROSS JOIN LATERAL (SELECT CASE WHEN d.kind = 'interceptor' AND j.interceptor_max_interval_days < d.frequency_days
                                THEN j.interceptor_max_interval_days ELSE d.frequency_days END AS days) freq
LEFT JOIN LATERAL (
  SELECT (r.service_completed_at AT TIME ZONE j.time_zone)::date AS service_on, m.id AS manifest_id,
         m.manifest_number, m.hauler_id
  FROM manifest_revisions r JOIN manifests m ON m.id = r.manifest_id AND m.current_revision = r.revision
  WHERE r.device_id = d.id AND r.qualifying AND r.service_completed_at < (%(end)s::timestamp AT TIME ZONE j.time_zone)
  ORDER BY r.service_completed_at DESC LIMIT 1
) last ON true
LEFT JOIN LATERAL (
  SELECT CASE WHEN s.status IN ('revoked', 'expired') THEN s.effective_on END AS ending_on
  FROM permit_status_changes s WHERE s.permit_id = p.id AND s.effective_on <= %(as_of)s
  ORDER BY s.effective_on DESC, s.recorded_at DESC LIMIT 1
) ending ON true
WHERE f.jurisdiction_id = %(jurisdiction)s AND p.issued_on <= %(as_of)s
  AND LEAST(ending.ending_on, p.expires_on + 1) > %(as_of)s
  AND %(as_of)s::date - (COALESCE(last.service_on, p.issued_on) + freq.days) > 0
ORDER BY days_overdue DESC, d.id
LIMIT 1000
"""


def as_of_query(base, auditor_token, dsn, city):
    as_of = datetime.now(timezone.utc).date()

    def sql():
        with psycopg.connect(dsn, options="-c jit=off") as conn:
            return len(conn.execute(HAND_WRITTEN_AS_OF, {"as_of": as_of, "end": as_of + timedelta(days=1),
                                                         "jurisdiction": city.jurisdictions["victorville"]}).fetchall())

    api, hand_written = in_turns(lambda: as_of_api(base, auditor_token, as_of), sql)
    return api * 1000, hand_written * 1000


def as_of_api(base, auditor_token, as_of):
    response = requests.get(f"{base}/v1/audit/missed-services", params={"as_of": as_of.isoformat(), "limit": 1000},
                            headers={"Authorization": f"Bearer {auditor_token}"}, timeout=120)
    assert response.status_code == 200, response.text
    return len(response.json()["items"])


def audit_list(base, auditor_token, path, runs=5):
    """The median milliseconds of one of the auditor's lists worked out whole, as CSV (after
    one request), and how many rows it has."""
    listed = []

    def ask():
        response = requests.get(f"{base}{path}", params={"format": "csv"},
                                headers={"Authorization": f"Bearer {auditor_token}"}, timeout=300)
        assert response.status_code == 200, response.text
        listed.append(response.text.count("\n") - 1)

    [seconds] = in_turns(ask, rounds=runs)
    return seconds * 1000, listed[0]


def in_turns(*calls, rounds=7):
    """Each call's median seconds: each made once first, then `rounds` times in turns, so
    that all meet this shared machine in the same moods."""
    for call in calls:
        call()
    taken = [[] for _ in calls]
    for _ in range(rounds):
        for call, times in zip(calls, taken):
            started = time.perf_counter()
            call()
            times.append(time.perf_counter() - started)
    return [statistics.median(times) for times in taken]


def random_png(side):
    from PIL import Image

    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, format="PNG", compress_level=0)
    return out.getvalue()


def uploads(server, hauler_token, s3, city, *, prefix="UP", runs=15):
    """Each size `runs` times, fresh bytes each time (nothing deduplicated): the medians.

    The API is sent the scan as a raw `PUT` to its SHA-256 from `http.client`, whose cost
    per request is close to nothing; the hash is computed by the client inside the timing,
    as boto3 hashes the body it signs for the direct `put_object`.
    """
    body = manifest_bodies(city, 1, prefix, offset=len(city.devices) - 1)[0]
    receipt = requests.post(f"{server.base}/v1/manifests", json=body, timeout=60,
                            headers={"Authorization": f"Bearer {hauler_token}"}).json()
    documents = f"/v1/manifests/{receipt['id']}/documents"
    for _ in range(WARM_UP_UPLOADS):  # each worker's first scan meets its S3 client and threads cold
        put_scan(server.base, documents, hauler_token, random_png(100))
    figures = {}
    for label, side in (("1 MB", 580), ("50 MB", 4090)):
        apis, directs = [], []
        for run in range(runs if side < 1000 else 7):
            data = random_png(side)
            size_mb = len(data) / 2 ** 20
            started = time.perf_counter()
            s3.put_object(Bucket="fogx-bench", Key=f"direct-{label}-{run}", Body=data)
            directs.append(size_mb / (time.perf_counter() - started))
            started = time.perf_counter()
            status, answer = put_scan(server.base, documents, hauler_token, data)
            apis.append(size_mb / (time.perf_counter() - started))
            assert status == 201, answer
            time.sleep(0.2)  # the lock the outbox applies after the receipt is not the next upload's
        figures[label] = (statistics.median(apis), statistics.median(directs), peak_rss_mb(server.worker_pids()),
                          size_mb)
    return figures


def put_scan(base, documents, bearer, data):
    key = hashlib.sha256(data).hexdigest()  # the client names the scan by its hash
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=300)
    try:
        connection.request("PUT", f"{documents}/{key}", body=data,
                           headers={"Authorization": f"Bearer {bearer}", "Content-Type": "image/png"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def busy_fse_exports(base, fse_token, city, hauler_token):
    fse_id = city.devices[0][1]
    # A few scans on the busy FSE's manifests, for the ZIP.
    listing = requests.get(f"{base}/v1/manifests", params={"fse_id": str(fse_id), "limit": 5}, timeout=60,
                           headers={"Authorization": f"Bearer {hauler_token}"}).json()["items"]
    from reportlab.pdfgen import canvas

    for n, manifest in enumerate(listing):
        out = io.BytesIO()
        page = canvas.Canvas(out)
        page.drawString(100, 700, f"scan {n}")
        page.showPage()
        page.save()
        requests.post(f"{base}/v1/manifests/{manifest['id']}/documents", timeout=60,
                      headers={"Authorization": f"Bearer {hauler_token}"},
                      files={"documents": (f"scan{n}.pdf", out.getvalue(), "application/pdf")})
    times = {}
    for fmt in ("pdf", "zip"):
        started = time.perf_counter()
        response = requests.get(f"{base}/v1/fses/{fse_id}/records", params={"format": fmt}, timeout=300,
                                headers={"Authorization": f"Bearer {fse_token}"})
        times[fmt] = (time.perf_counter() - started, len(response.content))
        assert response.status_code == 200, response.text
    count = requests.get(f"{base}/v1/fses/{fse_id}/records", timeout=120,
                         headers={"Authorization": f"Bearer {fse_token}"}).json()["summary"]["manifests"]
    return times, count


def machine(dsn):
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    memory = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                      if line.startswith("MemTotal"))) / 2 ** 20
    with psycopg.connect(dsn) as conn:
        pg = conn.execute("SHOW server_version").fetchone()[0]
    return f"{os.cpu_count()} cores ({model}), {memory:.0f} GiB, Python {platform.python_version()} ({os.path.realpath(sys.executable)}), PostgreSQL {pg}"


def write_readme(started, elapsed, dsn):
    readme = ROOT / "bench" / "README.md"
    table = ["| measurement | fogx | limit (same run) | ratio | target |", "| --- | --- | --- | --- | --- |"]
    table += [f"| {name} | {value} | {limit} | {ratio} | {target} |" for name, value, limit, ratio, target in results]
    block = (f"Last run: {started:%Y-%m-%d %H:%M} UTC on {machine(dsn)}; "
             f"{'small city (BENCH_SMALL=1)' if SMALL else f'{DEVICES:,} devices'}; {elapsed / 60:.1f} minutes.\n\n"
             + "\n".join(table) + "\n")
    runs.append(machine(dsn), f"{started:%Y-%m-%d %H:%M}", runs.commit_of(ROOT), figures)
    readme.write_text(with_results(readme.read_text() if readme.exists() else "", block))


RESULTS, END_OF_RESULTS = "<!-- results -->", "<!-- /results -->"


def with_results(text, block):
    """`text` with `block` between its results markers, the text around them kept; the
    markers and the block are added at the end where `text` has none."""
    head, found, rest = text.partition(RESULTS)
    if not found:
        return f"{text.rstrip()}\n\n{RESULTS}\n\n{block}{END_OF_RESULTS}\n"
    _, ended, tail = rest.partition(END_OF_RESULTS)
    return head + RESULTS + "\n\n" + block + END_OF_RESULTS + (tail if ended else "\n")


def main():
    started_at = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    dsn = database()
    engine = create_engine(dsn.replace("postgresql://", "postgresql+psycopg://"))
    migrate.upgrade(engine)
    engine.dispose()
    say(f"building a city of {DEVICES:,} devices")
    city = City(dsn, devices=DEVICES)
    city.build_registry()
    clients(dsn, city)
    s3_process, endpoint, s3 = start_s3()
    first = sibling(dsn, f"_at_{STAGES[0]}")
    try:
        for stage, total in enumerate(STAGES):
            if stage:
                # The database as the first stage left it, for ingest in turns with the grown one.
                create(first, template=dsn)
            t = time.perf_counter()
            city.add_manifests(total)
            say(f"{total:,} manifests in the database ({time.perf_counter() - t:.0f} s to generate)")
            server = Server(dsn, endpoint)
            try:
                hauler_token, auditor_token = token(server.base, "hauler"), token(server.base, "auditor")
                rate, p50, p99, plain, paced, paced_p50, paced_p99, api_cpu, plain_cpu, paced_cpu = ingest(
                    server, hauler_token, dsn, city, stage)
                record(f"ingest via API at {total:,} manifests ({CLIENTS} clients)", rate, "manifests/s", plain,
                       "plain psycopg loop", "ratio >= 0.5")
                record(f"CPU a manifest via the API at {total:,} (workers {api_cpu.ms('processes'):.2f}, PostgreSQL"
                       f" and the rest {api_cpu.ms('rest'):.2f}; load generator {api_cpu.ms('own'):.2f} more)",
                       api_cpu.ms("processes") + api_cpu.ms("rest"), "ms",
                       plain_cpu.ms("own") + plain_cpu.ms("rest"),
                       f"plain loop: its own {plain_cpu.ms('own'):.2f}, PostgreSQL and the rest"
                       f" {plain_cpu.ms('rest'):.2f}")
                record(f"ingest latency p50 at {total:,}, {CLIENTS} clients", p50, "ms")
                record(f"ingest latency p99 at {total:,}, {CLIENTS} clients", p99, "ms")
                # How loaded the API was: the offered rate against what it took in the rounds.
                offered = (f"{paced:,.0f} manifests/s offered (half the plain loop;"
                           f" {paced / rate:.2f} of the API's rate in the rounds)")
                record(f"ingest latency p50 at {total:,}, {offered}", paced_p50, "ms")
                record(f"ingest latency p99 at {total:,}, {offered}", paced_p99, "ms", target="< 100 ms")
                record(f"ingest while paced at {total:,}: answered (the workers' CPU a manifest"
                       f" {paced_cpu.ms('processes'):.2f} ms, PostgreSQL and the rest {paced_cpu.ms('rest'):.2f})",
                       # What the API took while paced: below the offered rate, the queue grew.
                       paced_cpu.count / paced_cpu.seconds, "manifests/s")
                record(f"the load generator's longest garbage collection while paced at {total:,}",
                       PACED_GC[stage], "ms")
                record(f"CPU stolen by the hypervisor during ingest at {total:,} (the rounds; while paced"
                       f" {stolen_percent(paced_cpu):.1f}%)", stolen_percent(api_cpu, plain_cpu), "%")
                if stage:
                    first_server = Server(first, endpoint)
                    try:
                        at_first, at_last = growth(first_server, server, city)
                    finally:
                        first_server.stop()
                    record(f"time per manifest ingested at {total:,} vs {STAGES[0]:,} (in turns)", at_last, "ms",
                           at_first, f"at {STAGES[0]:,}", "ratio <= 1.2")
                api_ms, sql_ms = as_of_query(server.base, auditor_token, dsn, city)
                record(f"missed services as of today, {int(DEVICES * 0.8):,} devices, {total:,} manifests",
                       api_ms, "ms", sql_ms, "hand-written SQL", "ratio <= 1.5, < 500 ms")
                if stage == 0:
                    for label, (api, direct, peak, size) in uploads(server, hauler_token, s3, city).items():
                        record(f"scan upload {label} ({size:.0f} MiB PNG)", api, "MiB/s", direct,
                               "direct boto3 put_object", "ratio >= 0.7")
                        record(f"API worker peak memory after the {label} upload", peak, "MiB",
                               target="flat in file size")
                else:
                    times, count = busy_fse_exports(server.base, token(server.base, "fse"), city, hauler_token)
                    record(f"binder PDF, busiest FSE ({count} manifests)", times["pdf"][0] * 1000, "ms",
                           target="< 2000 ms")
                    record(f"records ZIP with scans ({times['zip'][1] / 2 ** 20:.1f} MiB)", times["zip"][0] * 1000,
                           "ms")
                # After the uploads: the workers' peak memory there is the uploads' own.
                recommended_ms, listed = audit_list(server.base, auditor_token, "/v1/audit/frequency-recommendations")
                record(f"frequency recommendations (CSV), {listed:,} of {int(DEVICES * 0.8):,} devices listed,"
                       f" {total:,} manifests", recommended_ms, "ms")
                reconciled_ms, unmatched = audit_list(server.base, auditor_token, "/v1/audit/disposal-reconciliation")
                record(f"disposal reconciliation (CSV), the last 30 days, no site's receipts posted: {unmatched:,}"
                       f" deliveries listed, {total:,} manifests", reconciled_ms, "ms")
            finally:
                server.stop()
    finally:
        s3_process.terminate()
        drop(first)
    write_readme(started_at, time.perf_counter() - t0, dsn)
    say(f"done in {(time.perf_counter() - t0) / 60:.1f} minutes; results in bench/README.md and bench/runs.csv")


if __name__ == "__main__":
    main()
