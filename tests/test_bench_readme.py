"""`make bench` rewrites the results table of bench/README.md and nothing around it; the README
stays a page a reader can take in."""

from bench.harness import ROOT
from bench.report import END_OF_RESULTS, RESULTS, with_results


def test_the_table_between_the_markers_is_replaced_and_the_text_around_it_kept():
    text = f"# Benchmarks\n\nAbove.\n\n{RESULTS}\n\nold table\n{END_OF_RESULTS}\n\n## Run log\n\nBelow.\n"
    rewritten = with_results(text, "| new | table |\n")
    assert (
        rewritten
        == f"# Benchmarks\n\nAbove.\n\n{RESULTS}\n\n| new | table |\n{END_OF_RESULTS}\n\n## Run log\n\nBelow.\n"
    )
    assert with_results(rewritten, "| new | table |\n") == rewritten


def test_a_readme_without_markers_gets_the_table_at_its_end():
    assert with_results("# Benchmarks\n", "T\n") == f"# Benchmarks\n\n{RESULTS}\n\nT\n{END_OF_RESULTS}\n"
    # An opening marker alone (a table written before the end marker existed) ends the file.
    assert with_results(f"# B\n\n{RESULTS}\n\nold\n", "T\n") == f"# B\n\n{RESULTS}\n\nT\n{END_OF_RESULTS}\n"


def test_the_projects_readme_is_a_page_of_method_a_short_standing_and_the_last_runs_table():
    text = (ROOT / "bench" / "README.md").read_text()
    assert len(text.splitlines()) < 200
    assert text.count(RESULTS) == 1 and text.count(END_OF_RESULTS) == 1
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections == ["## What is measured", "## How the figures are taken", "## Where it stands", "## Last run"]
    assert text.index("## Last run") < text.index(RESULTS) < text.index(END_OF_RESULTS)
    table = text[text.index(RESULTS) : text.index(END_OF_RESULTS)]
    assert table.count("\n| ") > 10 and "Last run: " in table
    rewritten = with_results(text, "T\n")
    assert rewritten.startswith(text[: text.index(RESULTS)]) and rewritten.endswith(END_OF_RESULTS + "\n")


def test_the_standing_holds_the_fixed_rate_targets_and_says_the_share_of_the_loop_ones_are_withdrawn():
    """Issue 47: filings at 40 and 100 a second beside the readers, and alone at 200 a second;
    the targets at a share of the plain loop's rate are gone from the standing."""
    from bench.run import READ_TARGETS

    text = (ROOT / "bench" / "README.md").read_text()
    standing = text[text.index("## Where it stands") : text.index("## Last run")]
    targets = [line for line in standing.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert any(row.startswith("| 40 filings a second beside the readers: filings' p99 under 100 ms") for row in targets)
    assert any(row.startswith("| 100 filings a second beside the readers") for row in targets)
    assert any(row.startswith("| filings alone at 200 a second: p99 under 50 ms") for row in targets)
    assert not any("half the" in row or "plain loop" in row for row in targets)
    assert "Withdrawn: ingest at half the plain loop" in standing
    # The run's targets are the standing's: at 40 a second every kind of read has one, at 100 the pages.
    assert READ_TARGETS == {
        40: {
            "list_page": "< 1000 ms",
            "csv_first_byte": "< 1000 ms",
            "record_pdf": "< 2000 ms",
            "record_zip": "< 2000 ms",
        },
        100: {"list_page": "< 1000 ms"},
    }
