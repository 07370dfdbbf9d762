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


# The statuses a change of which is recorded with its reason: a suspension, a revocation, and
# a reinstatement (exchange policy: the record says why a permit stopped or started again).
REASONED = ("suspended", "revoked", "active")


def status_change_refusal(
    *, today: date, status: str, effective_on: date, issued_on: date, last_change_on, reason, notice_on=None
) -> dict:
    """Why a permit's status cannot become `status` from `effective_on`, by field; empty where
    it can. Like a frequency change, a status change never reaches back before the city's
    today (the past stays judged as it stood), the permit's issue date, or its last status
    change (exchange policy)."""
    errors = {}
    if effective_on < today:
        errors["effective_on"] = [
            f"A status changes from today ({today.isoformat()}) on; the days before stay as they were judged."
        ]
    elif effective_on < issued_on:
        errors["effective_on"] = [f"Must be on or after the permit's issue date, {issued_on.isoformat()}."]
    elif last_change_on is not None and effective_on < last_change_on:
        errors["effective_on"] = [
            f"Must be on or after the permit's last status change, on {last_change_on.isoformat()}."
        ]
    if status in REASONED and not (reason or "").strip():
        errors["reason"] = ["Say why: a suspension, revocation or reinstatement is recorded with its reason."]
    if notice_on is not None and notice_on > today:
        errors["notice_on"] = ["The permittee cannot have been given notice after today."]
    elif notice_on is not None and notice_on > effective_on:
        errors["notice_on"] = ["Notice is given on or before the day the change takes effect."]
    return errors
