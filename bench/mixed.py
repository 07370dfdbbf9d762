"""Filings beside readers: a hauler's dispatch system files at a fixed rate while eight city
auditors page through their lists and download each as CSV, and four restaurants download their
binder and records ZIP; the filings' latency, each kind of read's, and the CPU each read costs.

The readers run in processes of their own, so that their HTTP work does not slow the paced
filer's clock; each asks once every READ_EVERY seconds (about four reads a second in all, as a
busy city reads), a read that ran late starting the next at once.

    .venv-bench/bin/python bench/mixed.py [--rate 40 --rate 100] [--seconds 20]

On its own it uses the city `bench/lists.py --build` made (and a local S3 server of its own);
`make bench` runs it on its first stage's city.
"""

import argparse
import itertools
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.cpu import CPU, backend_pids  # noqa: E402
from bench.filing import _percentile, manifest_bodies  # noqa: E402
from bench.load import ingest_paced  # noqa: E402

AUDITORS, RESTAURANTS = 8, 4
READ_EVERY = 3.0  # seconds between one reader's requests
RATES = (40, 100)  # filings a second beside the readers
# Each kind of read, as the rows name it.
READS = {
    "list_page": "a list's first page",
    "csv_first_byte": "a list's CSV, its first byte",
    "csv_last_byte": "a list's CSV, its last byte",
    "record_pdf": "a binder PDF",
    "record_zip": "a records ZIP",
}
# Lists that have no CSV (bench/lists.py): only their first page is read.
PAGE_ONLY = ("/v1/changes", "/v1/audit/trends")


def _read(session, base, headers, ask):
    """One read: [(kind, seconds)]; a CSV timed until its first byte and until its last."""
    kind, path, query = ask
    started = time.perf_counter()
    with session.get(f"{base}{path}", params=query, headers=headers, timeout=300, stream=True) as response:
        response.raise_for_status()
        chunks = response.iter_content(chunk_size=None)
        next(chunks, b"")
        first = time.perf_counter() - started
        for _ in chunks:
            pass
    whole = time.perf_counter() - started
    return [("csv_first_byte", first), ("csv_last_byte", whole)] if kind == "csv" else [(kind, whole)]


def _reader(base, token, asks, phase, stop, out):
    """`asks` ((kind, path, query) each) in turn, one every READ_EVERY seconds from `phase` on,
    until `stop`: [(kind, seconds)] put on `out`, a read that failed as ("error", what failed)."""
    headers = {"Authorization": f"Bearer {token}"}
    taken = []
    due = time.perf_counter() + phase
    with requests.Session() as session:
        for n in itertools.count():
            if stop.wait(max(0.0, due - time.perf_counter())):
                break
            due += READ_EVERY
            kind, path, _ = asks[n % len(asks)]
            try:
                taken += _read(session, base, headers, asks[n % len(asks)])
            except requests.HTTPError as error:
                taken.append(("error", f"{kind} {path}: {error.response.status_code} {error.response.text[:200]}"))
            except (requests.RequestException, OSError) as error:
                taken.append(("error", f"{kind} {path}: {error!r}"[:300]))
    out.put(taken)


def auditor_asks(lists, first):
    """Each list's first page and then, where it has one, its CSV, from the `first`th list on
    (so that the auditors do not all ask the same at once, and each downloads within a run)."""
    turned = lists[first % len(lists) :] + lists[: first % len(lists)]
    return [
        ask
        for _, path, query in turned
        for ask in [("list_page", path, query)]
        + ([("csv", path, {**query, "format": "csv"})] if path not in PAGE_ONLY else [])
    ]


def restaurant_asks(city):
    records = f"/v1/fses/{city.devices[0][1]}/records"
    return [("record_pdf", records, {"format": "pdf"}), ("record_zip", records, {"format": "zip"})]


def mixed(base, tokens, city, lists, rate, seconds, offset):
    """Filings at `rate` a second for `seconds` beside the readers: `summary` of what each took."""
    context = multiprocessing.get_context("fork")
    stop, out = context.Event(), context.Queue()
    readers = AUDITORS + RESTAURANTS
    # Spread over a reading interval, so that the readers do not all ask at once.
    phases = [2 + READ_EVERY * n / readers for n in range(readers)]
    processes = [
        context.Process(target=_reader, args=(base, tokens["auditor"], auditor_asks(lists, n), phases[n], stop, out))
        for n in range(AUDITORS)
    ]
    processes += [
        context.Process(
            target=_reader, args=(base, tokens["fse"], restaurant_asks(city), phases[AUDITORS + n], stop, out)
        )
        for n in range(RESTAURANTS)
    ]
    for process in processes:
        process.start()
    try:
        time.sleep(2)  # every reader under way before the first filing
        bodies = manifest_bodies(city, int(rate * seconds), f"MIX{rate:g}-{offset}", offset=offset)
        filings = ingest_paced(base, tokens["hauler"], bodies, rate, strict=False)
    finally:
        stop.set()
    taken = [item for _ in processes for item in out.get(timeout=600)]
    for process in processes:
        process.join(timeout=60)
    return summary(filings, taken)


def summary(filings, taken):
    """{kind: (count, p50 ms, p99 ms)} of the filings' latencies (`filing`, seconds, a refused one
    infinite) and of each kind of read in `taken` ((kind, seconds) each); `filing_refused` and
    `read_failed` (the reads that raised or were not 200, `taken`'s ("error", what failed)) as
    counts, and `failures` what the reads that failed said, each once."""
    filings = sorted(filings)
    found = {
        "filing": (len(filings), _percentile(filings, 50), _percentile(filings, 99)) if filings else (0, 0, 0),
        "filing_refused": sum(1 for latency in filings if latency == float("inf")),
        "read_failed": sum(1 for kind, _ in taken if kind == "error"),
        "failures": sorted({what for kind, what in taken if kind == "error"}),
    }
    for kind in READS:
        times = sorted(seconds for k, seconds in taken if k == kind)
        if times:
            found[kind] = (len(times), statistics.median(times) * 1000, _percentile(times, 99))
    return found


def read_costs(server, tokens, city, lists, dsn, runs=10):
    """The CPU each kind of read costs asked alone, `runs` times after one to warm (every list's
    page or CSV each time for the lists): {kind: (the `CPU` account, median wall ms)}, the
    account's parts the app server's workers (`processes`), the export pool's (`pool`) and the
    database's backends (`postgres`); a kind whose read failed, what failed instead."""
    database = dsn.rsplit("/", 1)[1].split("?")[0]
    asks = {
        "list_page": [ask for ask in auditor_asks(lists, 0) if ask[0] == "list_page"],
        "csv": [ask for ask in auditor_asks(lists, 0) if ask[0] == "csv"],
        "record_pdf": restaurant_asks(city)[:1],
        "record_zip": restaurant_asks(city)[1:],
    }
    found = {}
    with requests.Session() as session:
        for kind, each in asks.items():
            headers = {"Authorization": f"Bearer {tokens['fse' if kind.startswith('record') else 'auditor']}"}
            try:
                for ask in each:
                    _read(session, server.base, headers, ask)
            except requests.HTTPError as error:
                found[kind] = f"{kind}: {error.response.status_code} {error.response.text[:200]}"
                continue
            account = CPU(
                server.worker_pids(),
                parts={"pool": server.export_worker_pids, "postgres": lambda: backend_pids(database)},
            )
            walls = []
            for _ in range(runs):
                for ask in each:
                    started = time.perf_counter()
                    account.measure(lambda: _read(session, server.base, headers, ask), 1)
                    walls.append((time.perf_counter() - started) * 1000)
            found[kind] = (account, statistics.median(walls))
    return found


def report(found, say=print):
    for kind, figure in found.items():
        if kind == "failures":
            for what in figure:
                say(f"a read failed: {what}")
        elif isinstance(figure, tuple):
            count, p50, p99 = figure
            say(f"{kind}: {count:,} requests, p50 {p50:,.0f} ms, p99 {p99:,.0f} ms")
        else:
            say(f"{kind}: {figure:,}")


def main():
    from bench.city import City
    from bench.harness import Server, start_s3, token
    from bench.lists import busiest_hauler, lists

    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, action="append", help="filings a second (each in turn)")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    args = parser.parse_args()
    dsn = os.environ.get("BENCH_LISTS_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/fogx_lists")
    city = City.load(dsn)
    s3_process, endpoint, _ = start_s3()
    server = Server(dsn, endpoint, workers=args.workers)
    try:
        tokens = {name: token(server.base, name) for name in ("hauler", "auditor", "fse")}
        every = lists(city, busiest_hauler(dsn))
        offset = int(time.time()) % 1000 * 1000
        for rate in args.rate or RATES:
            print(f"{rate:g} filings a second beside the readers", flush=True)
            report(mixed(server.base, tokens, city, every, rate, args.seconds, offset=offset))
            offset += int(rate * args.seconds)
        for kind, cost in read_costs(server, tokens, city, every, dsn).items():
            if isinstance(cost, str):
                print(f"{kind} failed: {cost}", flush=True)
                continue
            account, wall = cost
            print(
                f"{kind} alone: {wall:,.0f} ms; CPU the app {account.ms('processes'):.1f} ms, the pool"
                f" {account.ms('pool'):.1f}, PostgreSQL {account.ms('postgres'):.1f}, the rest"
                f" {account.ms('rest'):.1f}",
                flush=True,
            )
    finally:
        server.stop()
        s3_process.terminate()


if __name__ == "__main__":
    main()
