"""The bench's mixed stage: what the auditors and restaurants ask beside the filings, and how
their times are summed up (bench/mixed.py)."""

import math
from types import SimpleNamespace

import pytest

from bench.mixed import PAGE_ONLY, READS, auditor_asks, restaurant_asks, summary

LISTS = [
    ("findings", "/v1/audit/findings", {"from": "2026-01-01"}),
    ("feed", "/v1/changes", {}),
    ("trends", "/v1/audit/trends", {}),
    ("missed", "/v1/audit/missed-services", {}),
]


def test_an_auditor_reads_each_lists_first_page_and_then_its_csv_where_it_has_one():
    asks = auditor_asks(LISTS, 1)
    # From the list named by `first` on, so that the eight auditors do not all ask the same at once.
    assert asks == [
        ("list_page", "/v1/changes", {}),
        ("list_page", "/v1/audit/trends", {}),
        ("list_page", "/v1/audit/missed-services", {}),
        ("csv", "/v1/audit/missed-services", {"format": "csv"}),
        ("list_page", "/v1/audit/findings", {"from": "2026-01-01"}),
        ("csv", "/v1/audit/findings", {"from": "2026-01-01", "format": "csv"}),
    ]
    assert not any(path in PAGE_ONLY for kind, path, _ in asks if kind == "csv")
    assert auditor_asks(LISTS, 5) == auditor_asks(LISTS, 1)


def test_a_restaurant_downloads_its_binder_and_its_zip():
    city = SimpleNamespace(devices=[("device", "fse-1")])
    assert restaurant_asks(city) == [
        ("record_pdf", "/v1/fses/fse-1/records", {"format": "pdf"}),
        ("record_zip", "/v1/fses/fse-1/records", {"format": "zip"}),
    ]


def test_the_summary_gives_each_kinds_p99_and_counts_every_refusal_and_failure():
    filings = [0.010] * 98 + [0.090, math.inf]
    taken = (
        [("list_page", 0.1)] * 99
        + [("list_page", 0.9)]
        + [("csv_first_byte", 0.2), ("csv_last_byte", 1.5)]
        + [("error", "record_pdf /v1/fses/1/records: 503"), ("error", "csv /v1/changes: 400")] * 2
    )
    found = summary(filings, taken)
    assert found["filing"] == (100, pytest.approx(10), math.inf)  # a refused filing is the worst
    assert found["filing_refused"] == 1 and found["read_failed"] == 4
    assert found["failures"] == ["csv /v1/changes: 400", "record_pdf /v1/fses/1/records: 503"]
    assert found["list_page"] == (100, pytest.approx(100), pytest.approx(900))
    assert found["csv_first_byte"] == (1, pytest.approx(200), pytest.approx(200))
    assert found["csv_last_byte"][2] == pytest.approx(1500)
    # A kind that no read answered has no row of its own (the stage says so in its place).
    assert "record_pdf" not in found and set(found) <= {"filing", "filing_refused", "read_failed", "failures", *READS}
