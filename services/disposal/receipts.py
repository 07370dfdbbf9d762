"""Disposal receipts: a site's own record of each load it received, and the city's list of
where the site's side and the hauler's manifest disagree.

A site reports from the moment its first `site` client is made: manifests delivered to it
before then are not compared, since nothing says it would have reported them. A load is one
ticket of one site on one local day (`domain.reconcile.load_key`).
"""

import heapq
import itertools
from datetime import datetime, timedelta

from sqlalchemy import String, and_, func, literal, or_, select
from sqlalchemy.exc import IntegrityError

from domain import reconcile, words
from domain.clock import now as clock_now
from domain.dates import local_date, start_of_day
from schemas.manifest import canonical
from schemas.manifest_views import iso
from services.audit.lists import Listing, today
from services.errors import Conflict, Invalid
from services.registry.fses import page, within_reach
from storage import reach
from storage.db import streamed
from storage.disputes import DeliveryDispute
from storage.localtime import local_date as sql_local_date
from storage.models import (
    DisposalReceipt,
    DisposalSite,
    DisposalSiteJurisdiction,
    Fse,
    Hauler,
    HaulerLicence,
    HaulerRegistration,
    Jurisdiction,
    Manifest,
    ManifestRevision,
    OAuthClient,
)

SKEW = timedelta(minutes=5)


# A site's receipts -------------------------------------------------------------------------


def submit(session, principal, *, data) -> tuple[DisposalReceipt, bool]:
    """The site's receipt of one load; (receipt, created). The same ticket on the same local
    day sent again with the same body is the receipt already made; with another body, a 409:
    receipts are evidence, never changed."""
    if data["received_at"] > clock_now() + SKEW:
        raise Invalid("The load is dated in the future.", errors={"received_at": ["Must not be in the future."]})
    body = canonical(data)
    received_on = local_date(data["received_at"], site_zone(session, principal.site_id))
    existing = _on_ticket(session, principal, data["ticket_number"], received_on)
    if existing:
        return _same_or_conflict(session, principal, existing, body), False
    receipt = DisposalReceipt(
        site_id=principal.site_id,
        scope_jurisdiction_id=reach.city_scope(principal),
        body=body,
        submitted_by_client_id=principal.client_pk,
        submitted_by_person_id=principal.person_id,
        received_on=received_on,
        hauler_id=session.scalar(
            select(HaulerLicence.hauler_id)
            .where(HaulerLicence.licence_number == data["hauler_licence_number"])
            .limit(1)
        ),
        **{
            name: data[name]
            for name in (
                "ticket_number",
                "hauler_licence_number",
                "vehicle_id",
                "waste_type",
                "gallons_received",
                "received_at",
            )
        },
    )
    session.add(receipt)
    try:
        session.commit()
    except IntegrityError:  # the same ticket, from another request meanwhile
        session.rollback()
        existing = _on_ticket(session, principal, data["ticket_number"], received_on)
        return _same_or_conflict(session, principal, existing, body), False
    return receipt, True


def site_zone(session, site_id) -> str | None:
    """The time zone of the cities the site serves (the first, should they differ)."""
    return session.scalar(
        select(func.min(Jurisdiction.time_zone))
        .join(DisposalSiteJurisdiction, DisposalSiteJurisdiction.jurisdiction_id == Jurisdiction.id)
        .where(DisposalSiteJurisdiction.site_id == site_id)
    )


def _on_ticket(session, principal, ticket_number, received_on) -> list[DisposalReceipt]:
    """The receipts on the ticket that day that a new one would repeat: for the whole site,
    every one; for a city's clerks, theirs and the whole site's (another city's clerks report
    for that city alone)."""
    query = select(DisposalReceipt).where(
        DisposalReceipt.site_id == principal.site_id,
        DisposalReceipt.ticket_number == ticket_number,
        DisposalReceipt.received_on == received_on,
    )
    city = reach.city_scope(principal)
    if city is not None:
        query = query.where(
            or_(DisposalReceipt.scope_jurisdiction_id.is_(None), DisposalReceipt.scope_jurisdiction_id == city)
        )
    return session.scalars(query.order_by(DisposalReceipt.created_at)).all()


def _same_or_conflict(session, principal, receipts, body):
    """The receipt the caller sent again (the same body, one it may read); else a 409, which
    tells nothing of a receipt the caller may not read."""
    readable = set(session.scalars(_own(principal).where(DisposalReceipt.id.in_([r.id for r in receipts]))))
    for receipt in receipts:
        if receipt.id in readable and receipt.body == body:
            return receipt
    for receipt in receipts:
        if receipt.id in readable:
            raise Conflict(
                f"Ticket {receipt.ticket_number} was received on {receipt.received_on.isoformat()} with a "
                "different body; a receipt is never changed."
            )
    raise Conflict(f"Ticket {receipts[0].ticket_number} is reported for that day already; a receipt is never changed.")


def _own(principal):
    """The site's receipts; a person a city made the site's clerk reads those sent within that
    city's scope alone, not what the site reported for another city's haulers."""
    own = select(DisposalReceipt.id).where(DisposalReceipt.site_id == principal.site_id)
    city = reach.city_scope(principal)
    return own if city is None else own.where(DisposalReceipt.scope_jurisdiction_id == city)


def listing(session, principal, *, cursor=None, limit=50):
    return page(
        session,
        select(DisposalReceipt).where(DisposalReceipt.id.in_(_own(principal))),
        model=DisposalReceipt,
        cursor=cursor,
        limit=limit,
    )


def get(session, principal, *, receipt_id) -> DisposalReceipt:
    return within_reach(session, DisposalReceipt, object_id=receipt_id, visible_ids=_own(principal), what="receipt")


# The city's reconciliation -------------------------------------------------------------------


def reconciliation(session, principal, *, period_from=None, period_to=None, code=None) -> Listing:
    """The loads of the auditor's city delivered or received in the period (the city's local
    days) on which a reporting site and the manifests disagree, in time order."""
    city = session.get(Jurisdiction, principal.jurisdiction_id)
    period_to = period_to or today(city.time_zone)
    # A year by default: a dispute entered today is often of a load weeks old.
    period_from = period_from or period_to - timedelta(days=365)
    if period_to < period_from:
        raise Invalid("The period ends before it starts.", errors={"to": ["Must not be before from."]})
    now, wait = clock_now(), timedelta(hours=city.manifest_deadline_hours)
    start, end = start_of_day(period_from, city.time_zone), start_of_day(period_to + timedelta(days=1), city.time_zone)
    zone = literal(city.time_zone, String)
    # Each side comes from the database in time order; merged, and ties put in code order,
    # the list is worked out only as far as a page or a sheet has been read.
    merged = heapq.merge(
        _delivered(session, city.id, zone, start, end, now, wait),
        _unfiled(session, city.id, zone, start, end, now, wait),
        key=_when,
    )
    rows = (
        row
        for _, tied in itertools.groupby(merged, key=_when)
        for row in sorted(tied, key=lambda row: row["code"])
        if not code or row["code"] == code
    )
    return Listing(
        session,
        "disposal-reconciliation",
        lambda: city.time_zone,
        {"from": period_from.isoformat(), "to": period_to.isoformat()},
        rows=rows,
    )


def unreceived(session, city, *, at, within: timedelta) -> list[dict]:
    """The city's deliveries that the reconciliation judges, at `at`, to have no receipt
    (`receipt_missing`), of those whose manifest deadline ran out in the `within` before `at`,
    one row each; those the site disputes are left out: a dispute is a record of the load, and
    a notice of its own."""
    wait = timedelta(hours=city.manifest_deadline_hours)
    zone = literal(city.time_zone, String)
    rows = _delivered(session, city.id, zone, at - wait - within, at - wait, at, wait)
    found = []
    for _, codes in itertools.groupby(rows, key=lambda row: row["manifest_id"]):
        codes = list(codes)
        if {row["code"] for row in codes} == {reconcile.RECEIPT_MISSING}:
            found.append(codes[0])
    return found


def _when(row):
    return datetime.fromisoformat(row["delivered_at"] or row["received_at"]), row["ticket_number"] or ""


def speaking_for(city_id):
    """The site principals whose word counts in the city: the whole site's, and the clerks that
    city scoped (another city's clerks report for that city alone)."""
    return select(OAuthClient.id).where(
        OAuthClient.role == "site", or_(OAuthClient.jurisdiction_id.is_(None), OAuthClient.jurisdiction_id == city_id)
    )


def _reporting_since(city_id):
    """Each site reporting to the city and the moment its first site principal for it was made."""
    return (
        select(OAuthClient.site_id, func.min(OAuthClient.created_at).label("since"))
        .where(OAuthClient.id.in_(speaking_for(city_id)))
        .group_by(OAuthClient.site_id)
        .subquery()
    )


def _delivered(session, city_id, zone, start, end, now, wait):
    """The city's manifests delivered in the period to a reporting site, each beside the
    receipt of its ticket on its local delivery day, if any."""
    reporting = _reporting_since(city_id)
    revision, receipt = ManifestRevision, DisposalReceipt
    query = (
        select(
            Manifest.id.label("manifest_id"),
            Manifest.manifest_number,
            Manifest.hauler_id,
            Hauler.name.label("hauler_name"),
            Fse.id.label("fse_id"),
            Fse.name.label("fse_name"),
            revision.disposal_site_id.label("site_id"),
            DisposalSite.name.label("site_name"),
            revision.disposal_ticket_number.label("ticket_number"),
            revision.vehicle_id,
            revision.disposal_gallons_delivered,
            revision.disposal_delivered_at,
            receipt.id.label("receipt_id"),
            receipt.hauler_id.label("received_hauler_id"),
            receipt.hauler_licence_number,
            receipt.vehicle_id.label("received_vehicle_id"),
            receipt.gallons_received,
            receipt.received_at,
            _dispute_reason().label("dispute_reason"),
        )
        .join(revision, and_(revision.manifest_id == Manifest.id, revision.in_force))
        .join(reporting, reporting.c.site_id == revision.disposal_site_id)
        .join(DisposalSite, DisposalSite.id == revision.disposal_site_id)
        .join(Hauler, Hauler.id == Manifest.hauler_id)
        .join(Fse, Fse.id == Manifest.fse_id)
        .outerjoin(
            receipt,
            and_(
                receipt.site_id == revision.disposal_site_id,
                receipt.ticket_number == revision.disposal_ticket_number,
                receipt.received_on == sql_local_date(revision.disposal_delivered_at, zone),
                receipt.submitted_by_client_id.in_(speaking_for(city_id)),
            ),
        )
        .where(
            Manifest.jurisdiction_id == city_id,
            revision.disposal_delivered_at >= reporting.c.since,
            revision.disposal_delivered_at >= start,
            revision.disposal_delivered_at < end,
            # A delivery is dated no later than its filing (the future is refused): one in
            # the period was filed in it or since, or dated so by a correction.
            or_(Manifest.created_at >= start - SKEW, Manifest.current_revision > 1),
        )
        .order_by(revision.disposal_delivered_at, revision.disposal_ticket_number)
    )
    for row in streamed(session, query):
        delivered = reconcile.Delivered(
            row.hauler_id, row.vehicle_id, row.disposal_gallons_delivered, row.disposal_delivered_at
        )
        received = (
            None
            if row.receipt_id is None
            else reconcile.Received(
                row.received_hauler_id, row.received_vehicle_id, row.gallons_received, row.received_at
            )
        )
        codes = reconcile.compare(delivered, received, now=now, wait=wait)
        if row.dispute_reason is not None:
            codes = sorted([reconcile.DISPUTED, *codes])
        for code in codes:
            yield _row(code, row, received=received is not None)


def _dispute_reason():
    """The reason of the site's latest dispute of the manifest's delivery, if it disputes it."""
    revision = ManifestRevision
    return (
        select(DeliveryDispute.reason)
        .where(DeliveryDispute.manifest_id == Manifest.id, DeliveryDispute.site_id == revision.disposal_site_id)
        .order_by(DeliveryDispute.id.desc())
        .limit(1)
        .scalar_subquery()
    )


def _unfiled(session, city_id, zone, start, end, now, wait):
    """Receipts in the period at the sites serving the city, from its registered haulers or
    from haulers fogx does not know, on tickets no manifest names for that local day."""
    receipt, revision = DisposalReceipt, ManifestRevision
    named = select(revision.id).where(
        revision.in_force,
        revision.disposal_site_id == receipt.site_id,
        revision.disposal_ticket_number == receipt.ticket_number,
        sql_local_date(revision.disposal_delivered_at, zone) == receipt.received_on,
    )
    registered = select(HaulerRegistration.hauler_id).where(HaulerRegistration.jurisdiction_id == city_id)
    serving = select(DisposalSiteJurisdiction.site_id).where(DisposalSiteJurisdiction.jurisdiction_id == city_id)
    query = (
        select(
            receipt.id.label("receipt_id"),
            receipt.site_id,
            DisposalSite.name.label("site_name"),
            receipt.ticket_number,
            receipt.hauler_id.label("received_hauler_id"),
            Hauler.name.label("hauler_name"),
            receipt.hauler_licence_number,
            receipt.vehicle_id.label("received_vehicle_id"),
            receipt.gallons_received,
            receipt.received_at,
        )
        .join(DisposalSite, DisposalSite.id == receipt.site_id)
        .outerjoin(Hauler, Hauler.id == receipt.hauler_id)
        .where(
            receipt.site_id.in_(serving),
            ~named.exists(),
            receipt.submitted_by_client_id.in_(speaking_for(city_id)),
            receipt.hauler_id.is_(None) | receipt.hauler_id.in_(registered),
            receipt.received_at >= start,
            receipt.received_at < end,
        )
        .order_by(receipt.received_at, receipt.ticket_number)
    )
    for row in streamed(session, query):
        received = reconcile.Received(
            row.received_hauler_id, row.received_vehicle_id, row.gallons_received, row.received_at
        )
        for code in reconcile.compare(None, received, now=now, wait=wait):
            yield _row(code, row, received=True)


def _row(code, row, *, received):
    """One disagreement, as the list shows it: both sides, whichever are there."""
    fields = row._mapping

    def value(name):
        found = fields.get(name)
        return str(found) if found is not None and name.endswith("_id") else found

    message = reconcile.CODES[code]
    if code == reconcile.DISPUTED:
        message = f"{message} The site says: {value('dispute_reason')}"
    return {
        "code": code,
        "code_words": words.difference(code),
        "message": message,
        "citation": reconcile.CITATION,
        "site_id": value("site_id"),
        "site_name": value("site_name"),
        "ticket_number": value("ticket_number"),
        "manifest_id": value("manifest_id"),
        "manifest_number": value("manifest_number"),
        "fse_id": value("fse_id"),
        "fse_name": value("fse_name"),
        "hauler_id": value("hauler_id") or value("received_hauler_id"),
        "hauler_name": value("hauler_name"),
        "vehicle_id": value("vehicle_id"),
        "gallons_delivered": value("disposal_gallons_delivered"),
        "delivered_at": iso(value("disposal_delivered_at")),
        "receipt_id": value("receipt_id") if received else None,
        "received_hauler_licence_number": value("hauler_licence_number"),
        "received_vehicle_id": value("received_vehicle_id"),
        "gallons_received": value("gallons_received"),
        "received_at": iso(value("received_at")),
    }
