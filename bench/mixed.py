"""Filings under mixed load: a hauler's dispatch system files at an even pace while eight city
auditors page through their lists and download each as CSV, and four restaurants download their
binder and records ZIP, all at once; what a filing's latency becomes, and the readers' own.

The readers run in processes of their own, so that their HTTP work does not slow the paced
filer's clock; each loops over its requests until the filings are done.

    .venv-bench/bin/python bench/mixed.py --rate 400 [--seconds 30]

On its own it uses the city `bench/lists.py --build` made; `make bench` runs it at its last
stage, at half the plain loop's rate.
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

from bench.filing import _percentile, manifest_bodies  # noqa: E402
from bench.load import ingest_paced  # noqa: E402

AUDITORS, RESTAURANTS = 8, 4


def _reader(base, token, asks, stop, out):
    """`asks` ((kind, path, query) each) in turn until `stop`; [(kind, seconds)] put on `out`."""
    headers = {"Authorization": f"Bearer {token}"}
    taken = []
    with requests.Session() as session:
        for n in itertools.count():
            if stop.is_set():
                break
            kind, path, query = asks[n % len(asks)]
            started = time.perf_counter()
            session.get(f"{base}{path}", params=query, headers=headers, timeout=300).raise_for_status()
            taken.append((kind, time.perf_counter() - started))
    out.put(taken)


def _auditor_asks(lists, first):
    """Every list's first page, then each as CSV, from the `first`th list on."""
    turned = lists[first % len(lists):] + lists[:first % len(lists)]
    return ([("list_page", path, query) for _, path, query in turned]
            + [("list_csv", path, {**query, "format": "csv"}) for _, path, query in turned])


def mixed(base, tokens, city, lists, rate, seconds, offset):
    """Filings at `rate` a second for `seconds` beside the readers: {kind: (count, p50 ms, p99 ms)}
    for `filing` and each kind of read."""
    context = multiprocessing.get_context("fork")
    stop, out = context.Event(), context.Queue()
    records = f"/v1/fses/{city.devices[0][1]}/records"
    restaurant = [("record_pdf", records, {"format": "pdf"}), ("record_zip", records, {"format": "zip"})]
    readers = [context.Process(target=_reader, args=(base, tokens["auditor"], _auditor_asks(lists, i), stop, out))
               for i in range(AUDITORS)]
    readers += [context.Process(target=_reader, args=(base, tokens["fse"], restaurant, stop, out))
                for _ in range(RESTAURANTS)]
    for reader in readers:
        reader.start()
    try:
        time.sleep(2)  # every reader under way before the first filing
        bodies = manifest_bodies(city, int(rate * seconds), f"MIX{offset}", offset=offset)
        filings = sorted(ingest_paced(base, tokens["hauler"], bodies, rate, strict=False))
    finally:
        stop.set()
    taken = [item for _ in readers for item in out.get(timeout=600)]
    for reader in readers:
        reader.join(timeout=60)
    found = {"filing": (len(filings), _percentile(filings, 50), _percentile(filings, 99)),
             "filing_refused": (sum(1 for latency in filings if latency == float("inf")), 0, 0)}
    for kind in sorted({kind for kind, _ in taken}):
        times = sorted(seconds for k, seconds in taken if k == kind)
        found[kind] = (len(times), statistics.median(times) * 1000, _percentile(times, 99))
    return found


def report(found, say=print):
    for kind, (count, p50, p99) in found.items():
        say(f"{kind}: {count:,} requests, p50 {p50:,.0f} ms, p99 {p99:,.0f} ms")


def main():
    from bench.city import City
    from bench.harness import Server, token
    from bench.lists import busiest_hauler, lists

    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, required=True, help="filings a second")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    args = parser.parse_args()
    dsn = os.environ.get("BENCH_LISTS_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/fogx_lists")
    city = City.load(dsn)
    server = Server(dsn, "http://127.0.0.1:1", workers=args.workers)
    try:
        tokens = {name: token(server.base, name) for name in ("hauler", "auditor", "fse")}
        report(mixed(server.base, tokens, city, lists(city, busiest_hauler(dsn)), args.rate, args.seconds,
                     offset=int(time.time()) % 1000 * 1000))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
