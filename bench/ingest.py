"""Manifest ingest of two checkouts side by side: one gunicorn per checkout on the same small
city and database, the eight clients of `make bench` posting a round of filings to each in
turns (each round first to the checkout that went last in the one before), so that both meet
the machine in the same moods; a change to the filing path is judged by this, not by two runs
of `make bench` an hour apart.

    .venv-bench/bin/python bench/ingest.py CHECKOUT [CHECKOUT ...] [--rounds N] [--size N]

A checkout is a folder holding this project (e.g. `git worktree add /tmp/before HEAD~1`).
All of it twice, the servers started in the opposite order the second time. Prints, per
checkout, filings a second and the CPU a filing costs (its workers, and the rest of the
machine: PostgreSQL, the kernel's share of the network), means over the rounds, and for each
checkout after the first, the mean of its round-by-round difference in the workers' CPU from
the first, with its standard error.
"""

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import cpu, filing, harness, load  # noqa: E402
from bench.city import City  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkouts", nargs="+")
    parser.add_argument("--rounds", type=int, default=10, help="rounds each way")
    parser.add_argument("--size", type=int, default=400, help="filings a round, to each checkout")
    args = parser.parse_args()
    dsn = harness.database()
    harness.migrated(dsn)
    # Every filing services a device no other filing here touches.
    devices = 2 * len(args.checkouts) * (args.rounds * args.size + harness.WARM_UP)
    city = City(dsn, devices=devices)
    city.build_registry()
    harness.clients(dsn, city)
    city.add_manifests(5 * devices)
    city.settle()
    checkouts = list(enumerate(args.checkouts))  # the same folder may be given twice
    rates = {checkout: [] for checkout in checkouts}
    accounts = {checkout: [] for checkout in checkouts}
    offset = 0
    # Twice, the servers started in the opposite order the second time: which server starts
    # first is itself a difference between them.
    for order in (checkouts, checkouts[::-1]):
        offset = _rounds(order, dsn, city, args, offset, rates, accounts)
    first = checkouts[0]
    for checkout in checkouts:
        workers = [account.ms("processes") for account in accounts[checkout]]
        rest = [account.ms("rest") for account in accounts[checkout]]
        line = (
            f"{checkout[1]}: {statistics.mean(rates[checkout]):.0f} filings/s; CPU a filing: workers "
            f"{statistics.mean(workers):.2f} ms, the rest {statistics.mean(rest):.2f} ms"
        )
        if checkout != first:
            differences = [
                account.ms("processes") - base.ms("processes")
                for account, base in zip(accounts[checkout], accounts[first])
            ]
            error = statistics.stdev(differences) / len(differences) ** 0.5
            line += f"; workers vs the first {statistics.mean(differences):+.2f} ± {error:.2f} ms"
        print(line)


def _rounds(checkouts, dsn, city, args, offset, rates, accounts):
    """A server per checkout ((index, folder) pairs), started in the order given, and the
    rounds in turns; the next unused device's offset."""
    servers = {}
    try:
        for checkout in checkouts:
            # Filings without scans: nothing is sent to S3, so no S3 server is started.
            servers[checkout] = harness.Server(dsn, "http://127.0.0.1:1", root=Path(checkout[1]).resolve())
        tokens = {checkout: harness.token(server.base, "hauler") for checkout, server in servers.items()}
        for checkout, server in servers.items():
            load.ingest_api(
                server.base,
                tokens[checkout],
                filing.manifest_bodies(city, harness.WARM_UP, f"W{offset}", offset=offset),
            )
            offset += harness.WARM_UP
        for n in range(args.rounds):
            for checkout in checkouts if n % 2 == 0 else checkouts[::-1]:
                bodies = filing.manifest_bodies(city, args.size, f"R{offset}", offset=offset)
                offset += args.size
                account = cpu.CPU(servers[checkout].worker_pids())
                seconds, _ = account.measure(
                    lambda: load.ingest_api(servers[checkout].base, tokens[checkout], bodies), args.size
                )
                rates[checkout].append(args.size / seconds)
                accounts[checkout].append(account)
    finally:
        for server in servers.values():
            server.stop()
    return offset


if __name__ == "__main__":
    main()
