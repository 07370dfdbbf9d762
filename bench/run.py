"""`make bench`: fogx against the limits of the parts underneath, on PostgreSQL and S3.

Every figure is printed with the limit measured in the same run and their ratio; the table is
written into bench/README.md with the date and the machine, and every figure is appended to
bench/runs.csv (`bench.runs`).

    BENCH_DATABASE_URL   an empty database to build the city in (default: fogx_bench on the
                         local PostgreSQL, dropped and created); a copy of it as it stands at
                         100,000 manifests is made beside it (its name + `_at_100000`, by a
                         role that may create databases) and dropped at the end
    BENCH_SMALL=1        a smaller city, for trying the harness out
    BENCH_COUNTY_DATABASE_URL
                         the county of `bench/county.py` (default: fogx_county on the local
                         PostgreSQL), built there once when it is missing and kept for later runs
    BENCH_COUNTY=0       no county stage
    BENCH_STAGES=100000  the stages named alone (of 100000,1000000): the mixed stage and the
                         filings alone are at the first
"""

import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import county  # noqa: E402
from bench.audit_lists import as_of_query  # noqa: E402
from bench.city import City  # noqa: E402
from bench.cpu import stolen_percent  # noqa: E402
from bench.filing import ALONE_RATE, growth, ingest, paced  # noqa: E402
from bench.harness import (  # noqa: E402
    CLIENTS,
    DEVICES,
    INGEST_N,
    SMALL,
    STAGES,
    Server,
    clients,
    create,
    database,
    drop,
    migrated,
    say,
    sibling,
    start_s3,
    token,
)
from bench.lists import busiest_hauler, every_list, lists  # noqa: E402
from bench.mixed import AUDITORS, RATES, READS, RESTAURANTS, mixed, read_costs  # noqa: E402
from bench.report import record, write_readme  # noqa: E402
from bench.scans import busy_fse_exports, uploads  # noqa: E402

MIXED_SECONDS = 20  # how long the filings run beside the readers, at each rate


def main():
    started_at = datetime.now(UTC)
    t0 = time.perf_counter()
    dsn = database()
    migrated(dsn)
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
                rate, p50, p99, plain, api_cpu, plain_cpu, parallel = ingest(server, hauler_token, dsn, city, stage)
                # The ratio and the CPU are what a filing costs, shown without a target: the API
                # does more than the loop's inserts, and the targets are the filing's latency.
                record(
                    f"ingest via API at {total:,} manifests ({CLIENTS} clients)",
                    rate,
                    "manifests/s",
                    plain,
                    "plain psycopg loop, one connection",
                )
                record(
                    f"ingest via API at {total:,} manifests ({CLIENTS} clients), against {CLIENTS} connections",
                    rate,
                    "manifests/s",
                    parallel,
                    f"plain psycopg loop, {CLIENTS} connections",
                )
                record(
                    f"CPU a manifest via the API at {total:,} (workers {api_cpu.ms('processes'):.2f}, PostgreSQL"
                    f" and the rest {api_cpu.ms('rest'):.2f}; load generator {api_cpu.ms('own'):.2f} more)",
                    api_cpu.ms("processes") + api_cpu.ms("rest"),
                    "ms",
                    plain_cpu.ms("own") + plain_cpu.ms("rest"),
                    f"plain loop: its own {plain_cpu.ms('own'):.2f}, PostgreSQL and the rest"
                    f" {plain_cpu.ms('rest'):.2f}",
                )
                record(f"ingest latency p50 at {total:,}, {CLIENTS} clients", p50, "ms")
                record(f"ingest latency p99 at {total:,}, {CLIENTS} clients", p99, "ms")
                record(
                    f"CPU stolen by the hypervisor during ingest at {total:,} (the rounds)",
                    stolen_percent(api_cpu, plain_cpu),
                    "%",
                )
                if stage == 0:
                    _alone(server, hauler_token, city, total)
                if stage:
                    first_server = Server(first, endpoint)
                    try:
                        at_first, at_last = growth(first_server, server, city)
                    finally:
                        first_server.stop()
                    record(
                        f"time per manifest ingested at {total:,} vs {STAGES[0]:,} (in turns)",
                        at_last,
                        "ms",
                        at_first,
                        f"at {STAGES[0]:,}",
                        "ratio <= 1.2",
                    )
                api_ms, sql_ms = as_of_query(server.base, auditor_token, dsn, city)
                record(
                    f"missed services as of today, {int(DEVICES * 0.8):,} devices, {total:,} manifests",
                    api_ms,
                    "ms",
                    sql_ms,
                    "hand-written SQL",
                    "ratio <= 1.5, < 500 ms",
                )
                if stage == 0:
                    for label, (api, direct, peak, size) in uploads(server, hauler_token, s3, city).items():
                        record(
                            f"scan upload {label} ({size:.0f} MiB PNG)",
                            api,
                            "MiB/s",
                            direct,
                            "direct boto3 put_object",
                            "ratio >= 0.7",
                        )
                        record(
                            f"API worker peak memory after the {label} upload", peak, "MiB", target="flat in file size"
                        )
                else:
                    times, count = busy_fse_exports(server.base, token(server.base, "fse"), city, hauler_token)
                    record(
                        f"binder PDF, busiest FSE ({count} manifests)", times["pdf"][0] * 1000, "ms", target="< 2000 ms"
                    )
                    record(f"records ZIP with scans ({times['zip'][1] / 2**20:.1f} MiB)", times["zip"][0] * 1000, "ms")
                for name, (page, first_byte, whole, rows) in every_list(
                    server.base, auditor_token, city, busiest_hauler(dsn)
                ).items():
                    record(f"{name}, first page, {total:,} manifests", page, "ms", target="< 500 ms")
                    if first_byte is not None:
                        record(
                            f"{name}, CSV's first byte ({rows:,} rows; the last at {whole:,.0f} ms),"
                            f" {total:,} manifests",
                            first_byte,
                            "ms",
                            target="< 500 ms",
                        )
                if stage == 0:
                    _mixed(server, city, dsn, total, hauler_token, auditor_token)
            finally:
                server.stop()
    finally:
        s3_process.terminate()
        drop(first)
    if os.environ.get("BENCH_COUNTY") != "0" and not SMALL:
        _county()
    write_readme(started_at, time.perf_counter() - t0, dsn)
    say(f"done in {(time.perf_counter() - t0) / 60:.1f} minutes; results in bench/README.md and bench/runs.csv")


def _county():
    """The county stage, on the county an earlier run built (made now if there is none: it is
    kept, being most of an hour to make on two cores)."""
    dsn = os.environ.get("BENCH_COUNTY_DATABASE_URL", county.DEFAULT)
    first = sibling(dsn, f"_at_{county.FIRST}")
    if not county.built(dsn, first):
        say(f"building the county ({county.DEVICES:,} devices, {county.MANIFESTS:,} manifests; kept for later runs)")
        county.build(dsn, first)
    county.measure(dsn, first, record=record)


def _alone(server, hauler_token, city, total):
    """Filings alone at an even ALONE_RATE a second."""
    p50, p99, account, collections = paced(server, hauler_token, city)
    record(
        f"filing latency p99 at {total:,}, {ALONE_RATE} filings/s offered alone (p50 {p50:,.1f} ms; the"
        f" workers' CPU a filing {account.ms('processes'):.2f} ms, PostgreSQL and the rest"
        f" {account.ms('rest'):.2f}; stolen {stolen_percent(account):.1f}%; the load generator's longest"
        f" garbage collection {collections:.1f} ms)",
        p99,
        "ms",
        target="< 50 ms",
    )


# Each kind of read's target beside the filings, at each rate (none: shown, no target).
READ_TARGETS = {
    40: {"list_page": "< 1000 ms", "csv_first_byte": "< 1000 ms", "record_pdf": "< 2000 ms", "record_zip": "< 2000 ms"},
    100: {"list_page": "< 1000 ms"},
}


def _mixed(server, city, dsn, total, hauler_token, auditor_token):
    """Filings at each of RATES a second while auditors and restaurants read; then the CPU each
    kind of read costs, asked alone."""
    beside = f"{AUDITORS} auditors paging and downloading lists and {RESTAURANTS} restaurants downloading records"
    tokens = {"hauler": hauler_token, "auditor": auditor_token, "fse": token(server.base, "fse")}
    every = lists(city, busiest_hauler(dsn))
    # Past every device the stages file to, then from the first (an hour or more before).
    offset = (3 * len(STAGES) + 6) * INGEST_N
    for rate in RATES:
        found = mixed(server.base, tokens, city, every, rate, MIXED_SECONDS, offset=offset)
        offset += rate * MIXED_SECONDS
        count, _, p99 = found["filing"]
        record(
            f"filing latency p99 at {total:,}, {rate} filings/s beside {beside} ({count:,} filings)",
            p99,
            "ms",
            target="< 100 ms",
        )
        for kind, name in READS.items():
            target = READ_TARGETS[rate].get(kind, "")
            if kind == "csv_last_byte":
                continue  # shown beside the first byte's
            if kind in found:
                count, _, p99 = found[kind]
                last = f"; the last byte's p99 {found['csv_last_byte'][2]:,.0f} ms" if kind == "csv_first_byte" else ""
                record(
                    f"{name}, p99, beside {rate} filings/s and the readers ({count:,} reads{last})",
                    p99,
                    "ms",
                    target=target,
                )
            else:  # none answered while the filings ran: each took longer than they did
                record(
                    f"{name}, p99, beside {rate} filings/s and the readers (none answered within the"
                    f" {MIXED_SECONDS} s)",
                    MIXED_SECONDS * 1000,
                    "ms",
                    target=target,
                )
        record(
            f"filings refused and reads failed beside {rate} filings/s and the readers (filings"
            f" {found['filing_refused']:,}, reads {found['read_failed']:,})",
            found["filing_refused"] + found["read_failed"],
            "requests",
            target="0" if rate == RATES[0] else "",
        )
        for what in found["failures"]:
            say(f"  a read failed: {what}")
    names = {
        "list_page": "a list's first page",
        "csv": "a list's whole CSV",
        "record_pdf": "a binder PDF",
        "record_zip": "a records ZIP",
    }
    for kind, cost in read_costs(server, tokens, city, every, dsn).items():
        if isinstance(cost, str):
            say(f"  {names[kind]} failed, its CPU not taken: {cost}")
            continue
        account, wall = cost
        parts = ("processes", "pool", "postgres")
        record(
            f"CPU {names[kind]} costs, asked alone (the app server {account.ms('processes'):.1f} ms, the"
            f" export pool {account.ms('pool'):.1f}, PostgreSQL {account.ms('postgres'):.1f}; the rest of the"
            f" machine {account.ms('rest'):.1f}; {wall:,.0f} ms each)",
            sum(account.ms(part) for part in parts),
            "ms",
        )


if __name__ == "__main__":
    main()
