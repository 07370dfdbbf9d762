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


def _auditor(base, token, lists, stop, out):
    headers = {"Authorization": f"Bearer {token}"}
    taken = []
    n = 0
    with requests.Session() as session:
        while not stop.is_set():
            _, path, query = lists[n % len(lists)]
            as_csv = n // len(lists) % 2 == 1
            started = time.perf_counter()
            response = session.get(f"{base}{path}", params={**query, **({"format": "csv"} if as_csv else {})},
                                   headers=headers, timeout=300)
            response.raise_for_status()
            taken.append(("list_csv" if as_csv else "list_page", time.perf_counter() - started))
            n += 1
    out.put(taken)


def _restaurant(base, token, fse_id, stop, out):
    headers = {"Authorization": f"Bearer {token}"}
    taken = []
    n = 0
    with requests.Session() as session:
        while not stop.is_set():
            fmt = ("pdf", "zip")[n % 2]
            started = time.perf_counter()
            response = session.get(f"{base}/v1/fses/{fse_id}/records", params={"format": fmt}, headers=headers,
                                   timeout=300)
            response.raise_for_status()
            taken.append((f"record_{fmt}", time.perf_counter() - started))
            n += 1
    out.put(taken)


def mixed(base, tokens, city, lists, rate, seconds, offset):
    """Filings at `rate` a second for `seconds` beside the readers: {kind: (count, p50 ms, p99 ms)}
    for `filing` and each kind of read."""
    context = multiprocessing.get_context("fork")
    stop, out = context.Event(), context.Queue()
    readers = [context.Process(target=_auditor, args=(base, tokens["auditor"], lists[i % len(lists):] +
                                                      lists[:i % len(lists)], stop, out))
               for i in range(AUDITORS)]
    readers += [context.Process(target=_restaurant, args=(base, tokens["fse"], city.devices[0][1], stop, out))
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
