"""A permit's status on a day as a SQL expression, for lists and filters that ask it of many permits."""

from datetime import date

from sqlalchemy import case, func, select

from storage.models import Permit, PermitStatusChange


def permit_status_sql(day: date):
    """The permit status on `day` as a SQL expression (mirrors domain.registry)."""
    latest = (
        select(PermitStatusChange.status)
        .where(PermitStatusChange.permit_id == Permit.id, PermitStatusChange.effective_on <= day)
        .order_by(PermitStatusChange.effective_on.desc(), PermitStatusChange.recorded_at.desc())
        .limit(1)
        .scalar_subquery()
    )
    # A recorded status other than active stands; an active one (or none recorded) lapses at
    # expiry. The history is read once per permit: the subquery appears once.
    return case(
        (Permit.issued_on > day, "not_issued"),
        else_=func.coalesce(func.nullif(latest, "active"), case((Permit.expires_on < day, "expired"), else_="active")),
    )
