"""Every list a city auditor reads, timed as the auditor meets it: the first page (JSON), and
the whole list as CSV, both until its first byte and until its last.

    .venv-bench/bin/python bench/lists.py [--build]

On its own it times the city in `BENCH_LISTS_DATABASE_URL` (default: fogx_lists on the local
PostgreSQL; `--build` makes that city anew, at 1,000,000 manifests); `make bench` calls
`every_list` on its own city.
"""

import argparse
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import DEVICES, Server, clients, create, migrated, token  # noqa: E402

RUNS = 5


def lists(city, hauler_id):
    """(name, path, query) of each list, with the filters an auditor would set."""
    today = city.today.date()
    quarter = {"from": (today - timedelta(days=91)).isoformat(), "to": today.isoformat()}
    return [
        ("missed services as of today", "/v1/audit/missed-services", {}),
        ("missed services in the last quarter", "/v1/audit/missed-services", quarter),
        ("findings in the last quarter", "/v1/audit/findings", quarter),
        ("a hauler's scorecard, the last quarter", f"/v1/audit/haulers/{hauler_id}/scorecard", quarter),
        ("frequency recommendations", "/v1/audit/frequency-recommendations", {}),
        ("disposal reconciliation, the last 30 days", "/v1/audit/disposal-reconciliation", {}),
        ("change feed", "/v1/changes", {}),
        ("the city month by month, the last twelve months (the dashboard)", "/v1/audit/trends", {}),
    ]


# Lists that have no CSV: only their first page is timed.
PAGE_ONLY = ("/v1/changes", "/v1/audit/trends")


def every_list(base, auditor_token, city, hauler_id):
    """{name: (first page ms, CSV first byte ms or None, CSV whole ms or None, CSV rows)}."""
    headers = {"Authorization": f"Bearer {auditor_token}"}
    found = {}
    for name, path, query in lists(city, hauler_id):
        page = _median(lambda: _page(base, path, query, headers))
        sheet = None
        if path not in PAGE_ONLY:
            times = [_sheet(base, path, query, headers) for _ in range(RUNS + 1)][1:]
            sheet = (statistics.median(t[0] for t in times), statistics.median(t[1] for t in times), times[0][2])
        found[name] = (page, *(sheet or (None, None, None)))
    return found


def _median(call):
    call()  # once first: the workers' first request of a kind is not the auditor's experience
    return statistics.median(call() for _ in range(RUNS))


def _page(base, path, query, headers):
    started = time.perf_counter()
    response = requests.get(f"{base}{path}", params=query, headers=headers, timeout=300)
    assert response.status_code == 200, response.text[:500]
    return (time.perf_counter() - started) * 1000


def _sheet(base, path, query, headers):
    started = time.perf_counter()
    with requests.get(
        f"{base}{path}", params={**query, "format": "csv"}, headers=headers, timeout=300, stream=True
    ) as response:
        assert response.status_code == 200, response.text[:500]
        chunks = response.iter_content(chunk_size=None)
        first = next(chunks, b"")
        first_byte = (time.perf_counter() - started) * 1000
        lines = first.count(b"\n") + sum(chunk.count(b"\n") for chunk in chunks)
    return first_byte, (time.perf_counter() - started) * 1000, lines - 1


def main():
    from bench.city import City

    parser = argparse.ArgumentParser()
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--manifests", type=int, default=1_000_000)
    args = parser.parse_args()
    dsn = os.environ.get("BENCH_LISTS_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/fogx_lists")
    city = City(dsn, devices=DEVICES)
    if args.build:
        create(dsn)
    migrated(dsn)
    if args.build:
        city.build_registry()
        clients(dsn, city)
        city.add_manifests(args.manifests)
        city.settle()
    hauler_id = busiest_hauler(dsn)
    server = Server(dsn, "http://127.0.0.1:1")
    try:
        for name, (page, first, whole, rows) in every_list(
            server.base, token(server.base, "auditor"), city, hauler_id
        ).items():
            sheet = "" if first is None else f"; CSV first byte {first:,.0f} ms, whole {whole:,.0f} ms ({rows:,} rows)"
            print(f"{name}: first page {page:,.0f} ms{sheet}", flush=True)
    finally:
        server.stop()


def busiest_hauler(dsn):
    import psycopg

    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT hauler_id FROM manifests GROUP BY hauler_id ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()[0]


if __name__ == "__main__":
    main()
