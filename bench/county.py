"""A county's worth of FOG programs: 100,000 devices across 40 cities and 5,000,000 manifests
(Victorville keeps a fifth of the devices, today's city among many). What a filing costs there
against the same county at 100,000 manifests, in turns, and every list Victorville's auditor
reads, each against a second.

    .venv-bench/bin/python bench/county.py [--build]

`--build` makes the county anew in `BENCH_COUNTY_DATABASE_URL` (default: fogx_county on the
local PostgreSQL), and a copy of it as it stood at 100,000 manifests beside it (its name +
`_at_100000`); without it, the county built last is measured.
"""

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import Server, clients, create, migrated, say, sibling, token  # noqa: E402

DEVICES, JURISDICTIONS, MANIFESTS, FIRST = 100_000, 40, 5_000_000, 100_000
DEFAULT = "postgresql://postgres@127.0.0.1:5432/fogx_county"


def built(dsn, first) -> bool:
    """Whether both databases hold a whole county (a build cut short holds fewer manifests)."""
    import psycopg

    try:
        counts = []
        for url in (dsn, first):
            with psycopg.connect(url) as conn:
                counts.append(conn.execute("SELECT count(*) FROM manifests").fetchone()[0])
    except psycopg.Error:
        return False
    return counts[0] >= MANIFESTS and counts[1] >= FIRST


def build(dsn, first):
    from bench.city import City

    create(dsn)
    migrated(dsn)
    city = City(dsn, devices=DEVICES, jurisdictions=JURISDICTIONS)
    city.build_registry()
    clients(dsn, city)
    city.add_manifests(FIRST)
    create(first, template=dsn)
    say(f"{FIRST:,} manifests; copied")
    city.add_manifests(MANIFESTS, progress=lambda n: None)
    say(f"{MANIFESTS:,} manifests")


def measure(dsn, first, record=None):
    """{figure: (value, unit, target)} of the county; each also given to `record` if set."""
    from bench.city import City
    from bench.filing import growth
    from bench.lists import busiest_hauler, every_list

    migrated(dsn)
    migrated(first)
    city = City.load(dsn)
    found = {}
    first_server, server = Server(first, "http://127.0.0.1:1"), Server(dsn, "http://127.0.0.1:1")
    try:
        at_first, at_last = growth(first_server, server, city, prefix=f"K{int(time.time())}")
        found[f"time per manifest ingested in a county of {MANIFESTS:,} manifests vs {FIRST:,} (in turns)"] = (
            at_last,
            "ms",
            at_first,
            f"at {FIRST:,}",
            "ratio <= 1.2",
        )
        for name, (page, first_byte, whole, rows) in every_list(
            server.base, token(server.base, "auditor"), city, busiest_hauler(dsn)
        ).items():
            found[f"{name}, first page, in a county of {MANIFESTS:,}"] = (page, "ms", None, "", "< 1000 ms")
            if first_byte is not None:
                found[
                    f"{name}, CSV's first byte ({rows:,} rows; the last at {whole:,.0f} ms), in a county of"
                    f" {MANIFESTS:,}"
                ] = (first_byte, "ms", None, "", "< 1000 ms")
    finally:
        first_server.stop()
        server.stop()
    for name, (value, unit, limit, limit_name, target) in found.items():
        if record:
            record(name, value, unit, limit, limit_name, target)
        else:
            say(f"{name}: {value:,.1f} {unit}" + (f" (limit {limit:,.1f}: ratio {value / limit:.2f})" if limit else ""))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", action="store_true")
    args = parser.parse_args()
    dsn = os.environ.get("BENCH_COUNTY_DATABASE_URL", DEFAULT)
    first = sibling(dsn, f"_at_{FIRST}")
    if args.build:
        build(dsn, first)
    measure(dsn, first)


if __name__ == "__main__":
    main()
