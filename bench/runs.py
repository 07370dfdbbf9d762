"""Every run's figures, one row a figure, appended to bench/runs.csv: the history the README's
tables leave out, for comparing a figure across runs, commits and machines."""

import csv
import subprocess
from pathlib import Path

COLUMNS = ("machine", "date", "commit", "figure", "value")
RUNS = Path(__file__).resolve().parent / "runs.csv"


def figures_of(name, value, unit, limit=None, limit_name=""):
    """A measurement's rows of (figure, value): the value, and beside a limit the limit and
    the ratio of the two (the names the README's table gives them)."""
    rows = [(f"{name} [{unit}]", round(value, 2))]
    if limit:
        rows += [(f"{name}: {limit_name} [{unit}]", round(limit, 2)), (f"{name} [ratio]", round(value / limit, 2))]
    return rows


def commit_of(root) -> str:
    """The checkout's commit, marked `+` where its tree has changes not committed."""

    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return head + ("+" if git("status", "--porcelain", "--untracked-files=no") else "")


def append(machine: str, date: str, commit: str, figures, path: Path = RUNS):
    """Add one run's `figures` ((figure, value) pairs) to the CSV, its header first if it is new."""
    new = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="") as out:
        writer = csv.writer(out)
        if new:
            writer.writerow(COLUMNS)
        writer.writerows((machine, date, commit, figure, value) for figure, value in figures)
