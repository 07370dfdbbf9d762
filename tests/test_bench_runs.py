"""`make bench` appends each run's figures to bench/runs.csv, one row a figure."""

import csv

from bench import runs
from bench.report import record


def test_a_run_is_appended_under_one_header_and_the_runs_before_it_kept(tmp_path):
    path = tmp_path / "runs.csv"
    first = runs.figures_of(
        "ingest via API at 100,000 manifests (8 clients)", 446.44, "manifests/s", 707.5, "plain psycopg loop"
    )
    runs.append("2 cores, 24 GiB", "2026-12-04 05:16", "abc123", first, path=path)
    runs.append("2 cores, 24 GiB", "2026-12-05 06:00", "def456+", [("binder PDF [ms]", 321.0)], path=path)
    with path.open(newline="") as table:
        rows = list(csv.reader(table))
    assert rows == [
        ["machine", "date", "commit", "figure", "value"],
        [
            "2 cores, 24 GiB",
            "2026-12-04 05:16",
            "abc123",
            "ingest via API at 100,000 manifests (8 clients) [manifests/s]",
            "446.44",
        ],
        [
            "2 cores, 24 GiB",
            "2026-12-04 05:16",
            "abc123",
            "ingest via API at 100,000 manifests (8 clients): plain psycopg loop [manifests/s]",
            "707.5",
        ],
        [
            "2 cores, 24 GiB",
            "2026-12-04 05:16",
            "abc123",
            "ingest via API at 100,000 manifests (8 clients) [ratio]",
            "0.63",
        ],
        ["2 cores, 24 GiB", "2026-12-05 06:00", "def456+", "binder PDF [ms]", "321.0"],
    ]


def test_a_recorded_figure_is_kept_for_the_csv(monkeypatch):
    monkeypatch.setattr("bench.report.figures", [])
    monkeypatch.setattr("bench.report.results", [])
    from bench import report

    record("binder PDF, busiest FSE (40 manifests)", 512.345, "ms", target="< 2000 ms")
    assert report.figures == [("binder PDF, busiest FSE (40 manifests) [ms]", 512.35)]


def test_the_seeded_history_reads_back_whole():
    with runs.RUNS.open(newline="") as table:
        rows = list(csv.DictReader(table))
    assert rows and all(set(row) == set(runs.COLUMNS) for row in rows)
    assert all(float(row["value"]) == float(row["value"]) and row["date"][:4] == "2026" for row in rows)


def test_the_checkout_has_a_commit():
    commit = runs.commit_of(runs.RUNS.parent.parent)
    assert commit.rstrip("+") != "unknown" and len(commit.rstrip("+")) == 12
