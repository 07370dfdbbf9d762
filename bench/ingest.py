"""Manifest ingest of two checkouts side by side: one gunicorn per checkout on the same small
city and database, the eight clients of `make bench` posting a round of filings to each in
turns (each round first to the checkout that went last in the one before), so that both meet
the machine in the same moods; a change to the filing path is judged by this, not by two runs
of `make bench` an hour apart.

    .venv-bench/bin/python bench/ingest.py CHECKOUT [CHECKOUT ...] [--rounds N] [--size N]

A checkout is a folder holding this project (e.g. `git worktree add /tmp/before HEAD~1`).
Prints, per checkout, filings a second and the CPU a filing costs (its workers, and the rest
of the machine: PostgreSQL, the kernel's share of the network), means over the rounds, and
for each checkout after the first, the mean of its round-by-round difference in the workers'
CPU from the first, with its standard error.
"""
import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench.run as bench  # noqa: E402
from bench.uploads import Checkout  # noqa: E402
from sqlalchemy import create_engine  # noqa: E402
from storage import migrate  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkouts", nargs="+")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--size", type=int, default=400, help="filings a round, to each checkout")
    args = parser.parse_args()
    dsn = bench.database()
    engine = create_engine(dsn.replace("postgresql://", "postgresql+psycopg://"))
    migrate.upgrade(engine)
    engine.dispose()
    # Every filing services a device no other filing here touches.
    devices = (args.rounds * len(args.checkouts) + 1) * args.size + bench.WARM_UP * len(args.checkouts)
    city = bench.City(dsn, devices=devices)
    city.build_registry()
    bench.clients(dsn, city)
    city.add_manifests(5 * devices)
    city.settle()
    servers = []
    try:
        servers = [Checkout(folder, dsn, "http://127.0.0.1:1") for folder in args.checkouts]
        tokens = {server: bench.token(server.base, "hauler") for server in servers}
        offset = 0
        for server in servers:
            bench.ingest_api(server.base, tokens[server], bench.manifest_bodies(city, bench.WARM_UP, f"W{offset}",
                                                                                offset=offset))
            offset += bench.WARM_UP
        rates = {server: [] for server in servers}
        accounts = {server: [] for server in servers}
        for n in range(args.rounds):
            for server in servers if n % 2 == 0 else servers[::-1]:
                bodies = bench.manifest_bodies(city, args.size, f"R{n}-{offset}", offset=offset)
                offset += args.size
                account = bench.CPU(server.worker_pids())
                seconds, _ = account.measure(lambda: bench.ingest_api(server.base, tokens[server], bodies),
                                             args.size)
                rates[server].append(args.size / seconds)
                accounts[server].append(account)
        first = servers[0]
        for folder, server in zip(args.checkouts, servers):
            workers = [account.ms("processes") for account in accounts[server]]
            rest = [account.ms("rest") for account in accounts[server]]
            line = (f"{folder}: {statistics.mean(rates[server]):.0f} filings/s; CPU a filing: workers "
                    f"{statistics.mean(workers):.2f} ms, the rest {statistics.mean(rest):.2f} ms")
            if server is not first:
                differences = [account.ms("processes") - base.ms("processes")
                               for account, base in zip(accounts[server], accounts[first])]
                error = statistics.stdev(differences) / len(differences) ** 0.5 if len(differences) > 1 else 0
                line += f"; workers vs the first {statistics.mean(differences):+.2f} ± {error:.2f} ms"
            print(line)
    finally:
        for server in servers:
            server.stop()


if __name__ == "__main__":
    main()
