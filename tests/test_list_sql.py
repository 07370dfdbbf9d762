"""The due and missed lists state each interval's bounds once a row: a bound copied into every
expression that reads it (the status, the days overdue, the sort, the filter) multiplied the
statement's subqueries, and PostgreSQL ran them again for each copy (seconds on a city of
16,000 devices, where the list takes a fraction of one)."""

from datetime import date

import pytest
from sqlalchemy.dialects import postgresql, sqlite

import storage.models  # every mapper, for the lists' joins
import storage.people  # noqa: F401
from storage import audit, missed

# Each list is about 28,000 characters today; a bound inlined into the expressions that read
# it made them 200,000 to 350,000.
LONGEST = 40_000


@pytest.mark.parametrize("dialect", [postgresql.dialect(), sqlite.dialect()], ids=["postgresql", "sqlite"])
@pytest.mark.parametrize("which", ["as_of", "by_period"])
def test_each_bound_is_stated_once(dialect, which):
    if which == "as_of":
        query = audit.missed_as_of(date(2026, 12, 6), "city", dialect=dialect.name)
    else:
        query = missed.missed_intervals(date(2026, 9, 6), date(2026, 12, 6), "city", dialect=dialect.name)
    assert len(str(query.compile(dialect=dialect))) < LONGEST
