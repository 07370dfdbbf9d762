"""How long a city lets a permit run: the term its ordinance sets, refused or warned past it.

`term` is the city's `permit_term` parameter: None where its text sets none, else
{"years": N, "longer": "refused" | "warned"}. A term of N years runs from the issue date
through the day before the same date N years on.
"""

from datetime import date, timedelta

from domain.dates import add_years

REFUSED, WARNED = "refused", "warned"


def last_day_of_term(issued_on: date, years: int) -> date:
    """The last day a permit issued on `issued_on` may run: 2026-01-01 for one year, 2026-12-31."""
    return add_years(issued_on, years) - timedelta(days=1)


def term_exceeded(*, issued_on: date, expires_on: date, term: dict | None, citation: str) -> tuple | None:
    """(`refused` or `warned`, why) where the permit runs past the city's term, else None."""
    if not term or expires_on is None or issued_on is None:
        return None
    last = last_day_of_term(issued_on, term["years"])
    if expires_on <= last:
        return None
    span = "one year" if term["years"] == 1 else f"{term['years']} years"
    return term["longer"], (
        f"A permit issued on {issued_on.isoformat()} runs at most {span}, through {last.isoformat()} ({citation})."
    )
