"""Every interval a device went unserviced past its frequency and grace within a period: the
auditor's missed services by period."""
from datetime import date, timedelta

from sqlalchemy import Date, and_, case, func, literal, null, or_, select, union_all

from storage.audit import (
    _last_service,
    _permit_ending,
    city_zone,
    counted_services,
    day_number,
    day_of,
    effective_frequency,
    permit_ended_day,
)
from storage.localtime import day_start
from storage.models import Device, Fse, Jurisdiction, Manifest, ManifestRevision, Permit


def missed_intervals(period_from: date, period_to: date, jurisdiction_id, *, dialect="sqlite", fse_id=None,
                     hauler_id=None, area=None, zone=None):
    """Every gap between qualifying services longer than the frequency plus grace that was
    missed (past due beyond the grace, not yet serviced) on some day of the period while the
    device's permit held: a gap ends at the next service, or the permit's last day.

    Only the city's services from the period's first day on are read in order; the gap before
    the first of them starts at each device's last service before the period (one probe a
    device), or at its permit's issue.
    """
    zone = city_zone(jurisdiction_id, zone)
    frequency = effective_frequency()
    services = (counted_services(zone)
                .add_columns((frequency + Jurisdiction.grace_days).label("allowed"))
                .join(Device, Device.id == ManifestRevision.device_id)
                .join(Fse, Fse.id == Device.fse_id)
                .join(Jurisdiction, Jurisdiction.id == Fse.jurisdiction_id)
                .where(Fse.jurisdiction_id == jurisdiction_id,
                       ManifestRevision.service_completed_at >= day_start(literal(period_from, Date), zone))
                .subquery("services"))
    before, on = _last_service(period_from - timedelta(days=1), dialect, manifest=False)
    prior = (select(Device.id.label("device_id"), before.c.day.label("day"))
             .select_from(Device).join(Fse, Fse.id == Device.fse_id)
             .join(Jurisdiction, Jurisdiction.id == Fse.jurisdiction_id)
             .outerjoin(before, on)
             .where(Fse.jurisdiction_id == jurisdiction_id)).cte("prior")
    order = (services.c.day, services.c.manifest_id)
    windowed = select(
        services.c.device_id,
        func.lag(services.c.day).over(partition_by=services.c.device_id, order_by=order).label("start_day"),
        services.c.day.label("end_day"),
        services.c.manifest_id.label("end_manifest_id"),
        func.lead(services.c.day).over(partition_by=services.c.device_id, order_by=order).label("next_day"),
        services.c.allowed,
    ).subquery("windowed")
    # A gap between two services no longer than the frequency and grace was missed on no day:
    # kept are the gaps after a device's first service in the period and the long ones (closed),
    # and each device's last service (the gap it opens). Read twice, worked out once.
    closing = or_(windowed.c.start_day.is_(None), windowed.c.end_day - windowed.c.start_day > windowed.c.allowed)
    kept = (select(windowed.c.device_id, windowed.c.start_day, windowed.c.end_day, windowed.c.end_manifest_id,
                   closing.label("closing"), windowed.c.next_day.is_(None).label("last"))
            .where(or_(closing, windowed.c.next_day.is_(None))).cte("kept"))
    closed = (select(kept.c.device_id, kept.c.start_day, kept.c.end_day, kept.c.end_manifest_id)
              .where(kept.c.closing))
    open_ = (select(prior.c.device_id, kept.c.end_day.label("start_day"),
                    null().label("end_day"), null().label("end_manifest_id"))
             .select_from(prior).outerjoin(kept, and_(kept.c.device_id == prior.c.device_id, kept.c.last)))
    gaps = union_all(closed, open_).subquery("gaps")
    ending, ending_on = _permit_ending(period_to, dialect)
    last_day_in_force = permit_ended_day(ending) - 1
    served_from = func.coalesce(gaps.c.start_day, prior.c.day)
    start = func.coalesce(served_from, day_of(Permit.issued_on))
    due = start + frequency
    reached = func.coalesce(gaps.c.end_day, day_number(period_to))
    end = case((last_day_in_force < reached, last_day_in_force), else_=reached)
    missed_on = due + Jurisdiction.grace_days + 1
    query = (
        select(
            Fse.id.label("fse_id"), Fse.name.label("fse_name"), Fse.address.label("address"),
            Permit.permit_number.label("permit_number"), Device.id.label("device_id"),
            Device.tag.label("device_tag"), frequency.label("frequency_days"),
            start.label("from_day"), due.label("due_day"), missed_on.label("missed_day"),
            gaps.c.end_day.label("serviced_day"), gaps.c.end_manifest_id.label("serviced_manifest_id"),
            (end - due).label("days_late"),
            case((served_from.is_(None), "permit_issued"), else_="service").label("counted_from"),
        )
        .select_from(gaps)
        .join(prior, prior.c.device_id == gaps.c.device_id)
        .join(Device, Device.id == gaps.c.device_id)
        .join(Fse, Fse.id == Device.fse_id)
        .join(Permit, Permit.id == Device.permit_id)
        .join(Jurisdiction, Jurisdiction.id == Fse.jurisdiction_id)
        .outerjoin(ending, ending_on)
        .where(Fse.jurisdiction_id == jurisdiction_id,
               # implied by the next (the gap ends by its reach), and asked first: only the gaps
               # long enough to be missed wait for their permit's ending to be read
               reached - due > Jurisdiction.grace_days,
               end - due > Jurisdiction.grace_days,
               missed_on <= day_number(period_to), end >= day_number(period_from))
    ).subquery("intervals")
    result = select(query)
    if fse_id:
        result = result.where(query.c.fse_id == fse_id)
    if area:
        result = result.where(func.lower(query.c.address).like(f"%{area.lower()}%"))
    if hauler_id:
        result = result.where(query.c.device_id.in_(
            select(Manifest.device_id).where(Manifest.hauler_id == hauler_id)))
    return result.order_by(query.c.missed_day, query.c.device_id)
