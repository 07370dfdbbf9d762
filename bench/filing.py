"""Manifest ingest: the API against a plain psycopg loop writing the same rows, in rounds and paced."""

import json
import threading
import time
from collections import namedtuple
from datetime import UTC, datetime, timedelta

import psycopg

from bench.city_manifests import depths, iso
from bench.cpu import CPU, Collections
from bench.harness import CLIENTS, INGEST_N, STAGES, WARM_UP, token
from bench.load import ingest_api, ingest_paced
from domain import chain
from storage.models import new_id


def manifest_bodies(city, n, prefix, offset=0):
    """`n` fresh services of distinct devices (from `offset` on), as a dispatch app files them."""
    now = datetime.now(UTC)
    vehicles = city.haulers[0][1]
    bodies = []
    for i in range(n):
        device = city.devices[(offset + i) % len(city.devices)]
        _, _, _, _, kind, capacity, permit_number, tag, _ = device
        completed = now - timedelta(hours=2, minutes=i % 600)
        bodies.append(
            {
                "manifest_number": f"{prefix}-{i:06d}",
                "permit_number": permit_number,
                "device_tag": tag,
                "vehicle_id": vehicles[i % 3],
                "driver_name": "Driver",
                "fse_signer_name": "Signer",
                "service_started_at": iso(completed - timedelta(hours=1)),
                "service_completed_at": iso(completed),
                "waste_type": "grease_interceptor_waste" if kind == "interceptor" else "grease_trap_waste",
                "gallons_removed": capacity,
                "decant_returned_gallons": 0,
                "full_pump_down": True,
                "measurements": None,
                "disposal": {
                    "site_id": str(city.sites[i % len(city.sites)]),
                    "ticket_number": f"{prefix}-T-{i}",
                    "delivered_at": iso(completed + timedelta(minutes=30)),
                    "gallons_delivered": capacity,
                },
            }
        )
    return bodies


def ingest_plain(dsn, city, bodies, beside, client_pk, connections=1):
    """The limit: the rows the API writes for a filing (manifest, revision, findings, change) by a plain
    psycopg loop, a transaction each, on `connections` connections at once (the bodies dealt
    among them); the seconds it takes. `beside`: for each body, what the API made of a filing
    beside it (`Filed`: whether it qualifies, its findings); `client_pk`: the OAuth client the
    revisions are filed by."""
    start, failed = threading.Barrier(connections + 1), []

    def write(n):
        try:
            _plain_writer(dsn, city, bodies[n::connections], beside[n::connections], client_pk, start)
        except BaseException as error:
            failed.append(error)
            start.abort()

    writers = [threading.Thread(target=write, args=(n,)) for n in range(connections)]
    for writer in writers:
        writer.start()
    try:
        start.wait()
        started = time.perf_counter()
    finally:
        for writer in writers:
            writer.join()
    if failed:
        raise failed[0]
    return time.perf_counter() - started


def _plain_writer(dsn, city, bodies, beside, client_pk, start):
    devices = {(d[6], d[7]): d for d in city.devices}
    hauler_id = city.haulers[0][0]
    with psycopg.connect(dsn) as conn:
        # The names a revision keeps, read once as the API's process keeps them.
        hauler = conn.execute(
            "SELECT h.name, (SELECT l.licence_number FROM hauler_licences l WHERE l.hauler_id = h.id"
            " ORDER BY l.effective_on DESC, l.recorded_at DESC LIMIT 1) FROM haulers h WHERE h.id = %s",
            (hauler_id,),
        ).fetchone()
        sites = {str(row[0]): row[1:] for row in conn.execute("SELECT id, name, address FROM disposal_sites")}
        start.wait()
        for body, filed in zip(bodies, beside, strict=True):
            device_id, fse_id, permit_id, jid, *_ = devices[(body["permit_number"], body["device_tag"])]
            manifest_id, revision_id, received = new_id(), new_id(), datetime.now(UTC)
            document = {
                "manifest_id": str(manifest_id),
                "hauler_id": str(hauler_id),
                "revision": 1,
                "received_at": iso(received),
                "reason": None,
                "previous_sha256": None,
                "manifest": body,
            }
            with conn.transaction():
                conn.execute(
                    "INSERT INTO manifests (id, hauler_id, manifest_number, jurisdiction_id, fse_id,"
                    " device_id, permit_id, current_revision, created_at) VALUES (%s,%s,%s,%s,%s,%s,%s,1,%s)",
                    (
                        manifest_id,
                        hauler_id,
                        "P" + body["manifest_number"],
                        jid,
                        fse_id,
                        device_id,
                        permit_id,
                        received,
                    ),
                )
                conn.execute(
                    "INSERT INTO manifest_revisions (id, manifest_id, revision, body, sha256, received_at,"
                    " submitted_by_client_id, device_id, service_started_at, service_completed_at, waste_type,"
                    " gallons_removed, decant_returned_gallons, full_pump_down, vehicle_id, disposal_site_id,"
                    " disposal_ticket_number, disposal_delivered_at, disposal_gallons_delivered, fog_depth_in,"
                    " solids_depth_in, qualifying, previous_service_at, hauler_name, hauler_licence_number,"
                    " disposal_site_name, disposal_site_address)"
                    " VALUES (%s,%s,1,%s,%s,%s,%s,%s,%s,%s,%s,%s,0,true,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                    (
                        revision_id,
                        manifest_id,
                        json.dumps(document),
                        chain.seal(document),
                        received,
                        client_pk,
                        device_id,
                        body["service_started_at"],
                        body["service_completed_at"],
                        body["waste_type"],
                        body["gallons_removed"],
                        body["vehicle_id"],
                        body["disposal"]["site_id"],
                        body["disposal"]["ticket_number"],
                        body["disposal"]["delivered_at"],
                        body["disposal"]["gallons_delivered"],
                        *depths(body),
                        filed.qualifying,
                        filed.previous,
                        *hauler,
                        *sites[body["disposal"]["site_id"]],
                    ),
                )
                for code, severity, message, citation in filed.findings:
                    conn.execute(
                        "INSERT INTO findings (id, revision_id, code, severity, message, citation,"
                        " raised_at) VALUES (%s,%s,%s,%s,%s,%s,%s)",
                        (new_id(), revision_id, code, severity, message, citation, received),
                    )
                conn.execute(
                    "INSERT INTO changes (kind, at, manifest_id, manifest_number, revision, hauler_id,"
                    " fse_id, jurisdiction_id, detail) VALUES ('manifest.filed',%s,%s,%s,1,%s,%s,%s,%s)",
                    (
                        received,
                        manifest_id,
                        "P" + body["manifest_number"],
                        hauler_id,
                        fse_id,
                        jid,
                        json.dumps({"findings": sorted(f[0] for f in filed.findings)}),
                    ),
                )


Filed = namedtuple("Filed", "qualifying previous findings")


def api_filed(dsn, hauler_id, bodies):
    """What the API made of `bodies` filed by `hauler_id`, each a `Filed`: whether the revision
    qualifies, the service before it that it links to, and its findings (code, severity,
    message, citation)."""
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT m.manifest_number, r.qualifying, r.previous_service_at, f.code, f.severity, f.message,"
            " f.citation FROM manifests m"
            " JOIN manifest_revisions r ON r.manifest_id = m.id LEFT JOIN findings f ON f.revision_id = r.id"
            " WHERE m.hauler_id = %s AND m.manifest_number = ANY(%s) ORDER BY f.code",
            (hauler_id, [body["manifest_number"] for body in bodies]),
        ).fetchall()
    filed = {}
    for number, qualifying, previous, *finding in rows:
        filed.setdefault(number, Filed(qualifying, previous, []))
        if finding[0] is not None:
            filed[number].findings.append(tuple(finding))
    return [filed[body["manifest_number"]] for body in bodies]


def client_pk(dsn, client_id):
    with psycopg.connect(dsn) as conn:
        return conn.execute("SELECT id FROM oauth_clients WHERE client_id = %s", (client_id,)).fetchone()[0]


ALONE_RATE = 200  # filings a second, offered alone at an even pace


def ingest(server, hauler_token, dsn, city, stage, rounds=3):
    """The API and the plain loop in alternating rounds, so that both meet this shared machine
    in the same moods: (API manifests/s, p50 ms, p99 ms, plain loop manifests/s, the `CPU` each
    side's rounds used, and the plain loop's manifests/s on as many connections as clients).

    Each round services devices no other round or stage touches: a real dispatch day.
    """
    size = INGEST_N // rounds
    # Warm the workers first (statements compiled and prepared, registry facts read): the
    # figures are for a service that has been up for a while, not one still starting.
    ingest_api(
        server.base,
        hauler_token,
        manifest_bodies(city, WARM_UP, f"W{stage}", offset=(2 * len(STAGES) + 1) * INGEST_N + stage * WARM_UP),
    )
    api_seconds = plain_seconds = parallel_seconds = 0.0
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
        # And as many connections as the API has clients: the database's limit at that concurrency
        # (on devices of their own, past those the growth in turns files to).
        rows = manifest_bodies(city, size, f"C{stage}-{n}", offset=(2 * len(STAGES) + 6 + stage) * INGEST_N + n * size)
        parallel_seconds += ingest_plain(dsn, city, rows, beside, filer, connections=CLIENTS)
    latencies.sort()
    count = size * rounds
    return (
        count / api_seconds,
        _percentile(latencies, 50),
        _percentile(latencies, 99),
        count / plain_seconds,
        api_cpu,
        plain_cpu,
        count / parallel_seconds,
    )


def paced(server, hauler_token, city, rate=ALONE_RATE, seconds=10):
    """Filings alone at an even `rate` a second for `seconds`, each started on its schedule (an
    open loop, as independent dispatch systems file) and timed from it, so that one that waited
    counts its wait: (p50 ms, p99 ms, the `CPU` account, the load generator's longest garbage
    collection in ms, which the latencies would count as the server's)."""
    count = int(rate * seconds)
    # On devices of their own (where the paced runs at half the plain loop's rate once filed).
    bodies = manifest_bodies(city, count, f"Q{rate:g}", offset=(2 * len(STAGES) + 2) * INGEST_N)
    account = CPU(server.worker_pids())
    with Collections() as collections:
        latencies = sorted(account.measure(lambda: ingest_paced(server.base, hauler_token, bodies, rate), count))
    return _percentile(latencies, 50), _percentile(latencies, 99), account, collections.longest


def growth(first, last, city, rounds=10, prefix=""):
    """Milliseconds per manifest ingested through the API at the first stage's size and at the
    last's (servers on a copy of the database as it stood then, and on the grown one), the
    same filings posted to each in turns, each round first to the one that went second in the
    round before. The stages' own figures are minutes apart, and a machine's speed can move
    between them by more than the database's size moves the filing. (The missed-services
    answer is not compared so: asked of both in turns, the two databases' pages evict each
    other's from the server's shared buffers, which the larger one pays for.) `prefix`: of the
    manifest numbers, for a city measured more than once."""
    size = INGEST_N // rounds
    base = (2 * len(STAGES) + 4) * INGEST_N
    bearers = {server: token(server.base, "hauler") for server in (first, last)}
    seconds = {first: 0.0, last: 0.0}
    warm = manifest_bodies(city, WARM_UP, f"{prefix}GW", offset=base + INGEST_N)
    for server, bearer in bearers.items():
        ingest_api(server.base, bearer, warm)
    for n in range(rounds):
        bodies = manifest_bodies(city, size, f"{prefix}G{n}", offset=base + n * size)
        for server in (first, last) if n % 2 == 0 else (last, first):
            seconds[server] += ingest_api(server.base, bearers[server], bodies)[0]
    return seconds[first] / (size * rounds) * 1000, seconds[last] / (size * rounds) * 1000


def _percentile(ordered, p):
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))] * 1000
