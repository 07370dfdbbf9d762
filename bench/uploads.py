"""Scan uploads of two checkouts side by side: one gunicorn per checkout on the same small
city, database and S3 server, each scan (1 MB, or `--side 4090` for 48 MiB) sent to each in
turns after one direct boto3 `put_object` of the same size, so that both meet the machine in
the same moods.

    .venv/bin/python bench/uploads.py CHECKOUT [CHECKOUT ...] [--runs N] [--side PIXELS]

A checkout is a folder holding this project (e.g. `git worktree add /tmp/before HEAD~1`).
Prints, per checkout, the median and mean of (direct time / API time), the ratio of
`make bench`; the median API time; and, after the first checkout, the uploads' difference from
the one sent to the first checkout in the same turn (median, and mean with its standard error).
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ["BENCH_SMALL"] = "1"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402

from bench import filing, harness, scans  # noqa: E402
from bench.city import City  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("checkouts", nargs="+")
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--side", type=int, default=580, help="the PNG's side: 580 is 1 MB, 4090 is 48 MiB")
    args = parser.parse_args()
    dsn = harness.database()
    harness.migrated(dsn)
    city = City(dsn, devices=harness.DEVICES)
    city.build_registry()
    harness.clients(dsn, city)
    city.add_manifests(10_000)
    s3_process, endpoint, s3 = harness.start_s3()
    servers = []
    try:
        servers = [harness.Server(dsn, endpoint, root=Path(folder).resolve()) for folder in args.checkouts]
        token = harness.token(servers[0].base, "hauler")
        body = filing.manifest_bodies(city, 1, "UPAB", offset=len(city.devices) - 1)[0]
        receipt = requests.post(
            f"{servers[0].base}/v1/manifests", json=body, timeout=60, headers={"Authorization": f"Bearer {token}"}
        ).json()
        documents = f"/v1/manifests/{receipt['id']}/documents"
        for server in servers:
            for _ in range(harness.WARM_UP_UPLOADS):
                scans.put_scan(server.base, documents, token, scans.random_png(100))
        ratios = {server: [] for server in servers}
        times = {server: [] for server in servers}
        for run in range(args.runs):
            data = scans.random_png(args.side)
            started = time.perf_counter()
            s3.put_object(Bucket="fogx-bench", Key=f"direct-{run}", Body=data)
            direct = time.perf_counter() - started
            for server in servers if run % 2 == 0 else servers[::-1]:
                scan = scans.random_png(args.side)  # fresh bytes: nothing deduplicated
                time.sleep(0.2)
                started = time.perf_counter()
                status, answer = scans.put_scan(server.base, documents, token, scan)
                times[server].append(time.perf_counter() - started)
                ratios[server].append(direct / times[server][-1])
                assert status == 201, answer
            time.sleep(0.2)
        for folder, server in zip(args.checkouts, servers):
            print(
                f"{folder}: {len(data) / 2**20:.0f} MiB upload ratio, "
                f"median {statistics.median(ratios[server]):.3f}, "
                f"mean {statistics.mean(ratios[server]):.3f} ({args.runs} uploads); "
                f"API median {statistics.median(times[server]) * 1000:.2f} ms" + _difference(times, server, servers[0])
            )
    finally:
        for server in servers:
            server.stop()
        s3_process.terminate()


def _difference(times, server, first):
    if server is first or len(times[server]) < 2:
        return ""
    ms = [(mine - theirs) * 1000 for mine, theirs in zip(times[server], times[first])]
    error = statistics.stdev(ms) / len(ms) ** 0.5
    return (
        f", against the first: median {statistics.median(ms):+.2f} ms, "
        f"mean {statistics.mean(ms):+.2f} +- {error:.2f} ms"
    )


if __name__ == "__main__":
    main()
