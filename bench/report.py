"""The run's figures: printed, written into bench/README.md's table and appended to bench/runs.csv."""

import os
import platform
import sys
from pathlib import Path

import psycopg

from bench import runs
from bench.harness import DEVICES, ROOT, SMALL, STAGES, say

results = []
figures = []  # (figure, value) for bench/runs.csv


def record(name, value, unit, limit=None, limit_name="", target=""):
    ratio = f"{value / limit:.2f}" if limit else ""
    figures.extend(runs.figures_of(name, value, unit, limit, limit_name))
    results.append(
        (name, f"{value:,.1f} {unit}", f"{limit:,.1f} {unit} ({limit_name})" if limit else "", ratio, target)
    )
    say(f"  {name}: {value:,.1f} {unit}" + (f"  limit {limit:,.1f} ({limit_name})  ratio {ratio}" if limit else ""))


def machine(dsn):
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    memory = (
        int(
            next(
                line.split()[1]
                for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemTotal")
            )
        )
        / 2**20
    )
    with psycopg.connect(dsn) as conn:
        pg = conn.execute("SHOW server_version").fetchone()[0]
    return f"{os.cpu_count()} cores ({model}), {memory:.0f} GiB, Python {platform.python_version()} ({os.path.realpath(sys.executable)}), PostgreSQL {pg}"


def write_readme(started, elapsed, dsn):
    readme = ROOT / "bench" / "README.md"
    table = ["| measurement | fogx | limit (same run) | ratio | target |", "| --- | --- | --- | --- | --- |"]
    table += [f"| {name} | {value} | {limit} | {ratio} | {target} |" for name, value, limit, ratio, target in results]
    block = (
        f"Last run: {started:%Y-%m-%d %H:%M} UTC on {machine(dsn)}; "
        f"{'small city (BENCH_SMALL=1)' if SMALL else f'{DEVICES:,} devices'}; manifests at"
        f" {' and '.join(f'{size:,}' for size in STAGES)}; {elapsed / 60:.1f} minutes.\n\n" + "\n".join(table) + "\n"
    )
    runs.append(machine(dsn), f"{started:%Y-%m-%d %H:%M}", runs.commit_of(ROOT), figures)
    readme.write_text(with_results(readme.read_text() if readme.exists() else "", block))


RESULTS, END_OF_RESULTS = "<!-- results -->", "<!-- /results -->"


def with_results(text, block):
    """`text` with `block` between its results markers, the text around them kept; the
    markers and the block are added at the end where `text` has none."""
    head, found, rest = text.partition(RESULTS)
    if not found:
        return f"{text.rstrip()}\n\n{RESULTS}\n\n{block}{END_OF_RESULTS}\n"
    _, ended, tail = rest.partition(END_OF_RESULTS)
    return head + RESULTS + "\n\n" + block + END_OF_RESULTS + (tail if ended else "\n")
