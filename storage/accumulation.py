"""Each interceptor's measured accumulation of FOG and solids between its services, the
ground of the frequency recommendations (`domain.frequency`).

An interval runs from a current revision that qualified (a full pump-down, so the device
started empty) to the device's next current revision, whose hauler measured both depths
before pumping; loads of one day make no interval between them. Rows come in the order of
the list (FSE name, device tag, device id). On PostgreSQL each device's intervals are read
from its own services by index, device after device, so the first rows of a city's list come
before its last device is read; SQLite ranks the whole city's services at once.
"""

from datetime import date

from sqlalchemy import and_, bindparam, case, func, select, text, true
from sqlalchemy.orm import aliased

from storage.audit import city_zone, day_number, from_day_number, serviced_within
from storage.localtime import local_day
from storage.models import Device, DeviceFrequencyChange, Fse, Jurisdiction, Manifest, ManifestRevision, Permit


def effective_frequency():
    """Device frequency, capped by the jurisdiction's longest interval in days for interceptors."""
    return case(
        (
            and_(
                Device.kind == "interceptor",
                Jurisdiction.interceptor_max_interval_days.is_not(None),
                Jurisdiction.interceptor_max_interval_days < Device.frequency_days,
            ),
            Jurisdiction.interceptor_max_interval_days,
        ),
        else_=Device.frequency_days,
    )


_COLUMNS = (
    "fse_id, fse_name, address, permit_number, device_id, device_tag, liquid_depth_in, "
    "frequency_days, intervals, inches, days, from_day, to_day"
)

_BY_DEVICE = f"""
SELECT {_COLUMNS}
FROM (
    SELECT f.id AS fse_id, f.name AS fse_name, f.address, p.permit_number, d.id AS device_id,
           d.tag AS device_tag, d.liquid_depth_in, j.time_zone,
           CASE WHEN j.interceptor_max_interval_days IS NOT NULL
                     AND j.interceptor_max_interval_days < d.in_force
                THEN j.interceptor_max_interval_days ELSE d.in_force END AS frequency_days
    FROM (
        SELECT devices.*, COALESCE(
            (SELECT c.to_days FROM device_frequency_changes c
             WHERE c.device_id = devices.id AND c.withdrawn_at IS NULL AND c.effective_on <= CAST(:as_of AS DATE)
             ORDER BY c.effective_on DESC LIMIT 1),
            (SELECT c.from_days FROM device_frequency_changes c
             WHERE c.device_id = devices.id AND c.withdrawn_at IS NULL ORDER BY c.effective_on LIMIT 1),
            devices.frequency_days) AS in_force
        FROM devices
    ) AS d
    JOIN fses f ON f.id = d.fse_id
    JOIN permits p ON p.id = d.permit_id
    JOIN jurisdictions j ON j.id = f.jurisdiction_id
    WHERE f.jurisdiction_id = :jurisdiction_id AND d.kind = 'interceptor'
      AND (CAST(:fse_id AS uuid) IS NULL OR f.id = CAST(:fse_id AS uuid))
    ORDER BY f.name, d.tag, d.id
) AS device
CROSS JOIN LATERAL (
    SELECT count(*) AS intervals, sum(s.inches) AS inches, sum(s.day - s.previous_day) AS days,
           min(s.previous_day) AS from_day, max(s.day) AS to_day
    FROM (
        SELECT CAST(r.service_completed_at AT TIME ZONE device.time_zone AS DATE) - DATE '2000-01-01' AS day,
               r.fog_depth_in + r.solids_depth_in AS inches,
               lag(CAST(r.service_completed_at AT TIME ZONE device.time_zone AS DATE) - DATE '2000-01-01')
                   OVER w AS previous_day,
               lag(r.qualifying) OVER w AS previous_qualifying
        FROM manifest_revisions r
        JOIN manifests m ON m.id = r.manifest_id AND m.current_revision = r.revision
        WHERE r.device_id = device.device_id AND m.jurisdiction_id = :jurisdiction_id
          AND r.service_completed_at >= CAST(CAST(:begin AS DATE) AS TIMESTAMP) AT TIME ZONE device.time_zone
          AND r.service_completed_at < CAST(CAST(:end AS DATE) AS TIMESTAMP) AT TIME ZONE device.time_zone
        WINDOW w AS (ORDER BY r.service_completed_at, r.manifest_id)
    ) AS s
    WHERE s.previous_qualifying AND s.inches IS NOT NULL AND s.day > s.previous_day AND s.day >= :first_day
    HAVING count(*) >= :min_intervals
) AS measured
ORDER BY device.fse_name, device.device_tag, device.device_id
"""


def measured_accumulation(
    as_of: date, jurisdiction_id, *, min_intervals: int, dialect: str, years: int = 3, fse_id=None
):
    """Per interceptor with at least `min_intervals` measured intervals ending in the `years`
    up to `as_of`: the intervals' count, summed days and summed FOG and solids depths, beside
    the device's design depth and its frequency in force on `as_of` (a change scheduled later
    is not yet the one the data are weighed against)."""
    first_day = day_number(as_of) - 365 * years
    # The year before the window too, where each first interval's full pump-down lies.
    begin = from_day_number(first_day - 366)
    if dialect == "postgresql":
        return text(_BY_DEVICE).bindparams(
            bindparam("fse_id", fse_id and str(fse_id)),
            jurisdiction_id=jurisdiction_id,
            as_of=as_of,
            begin=begin,
            end=from_day_number(day_number(as_of) + 1),
            first_day=first_day,
            min_intervals=min_intervals,
        )
    return _whole_city(
        as_of, jurisdiction_id, begin=begin, first_day=first_day, min_intervals=min_intervals, fse_id=fse_id
    )


def frequency_in_force(device_id, frequency_days, day: date):
    """The device's frequency in force on `day` (`domain.registry.frequency_on`): the latest
    change in effect by then (withdrawn ones count nowhere), else the first change's `from_days`, else its own."""
    change = aliased(DeviceFrequencyChange)
    then = (
        select(change.to_days)
        .where(change.device_id == device_id, change.withdrawn_at.is_(None), change.effective_on <= day)
        .order_by(change.effective_on.desc())
        .limit(1)
        .scalar_subquery()
    )
    first = (
        select(change.from_days)
        .where(change.device_id == device_id, change.withdrawn_at.is_(None))
        .order_by(change.effective_on)
        .limit(1)
        .scalar_subquery()
    )
    return func.coalesce(then, first, frequency_days)


def _capped(frequency):
    """`frequency`, no longer than the city's longest interval in days (`storage.audit.effective_frequency`)."""
    longest = Jurisdiction.interceptor_max_interval_days
    return case((and_(longest.is_not(None), longest < frequency), longest), else_=frequency)


def _whole_city(as_of, jurisdiction_id, *, begin, first_day, min_intervals, fse_id):
    order = (ManifestRevision.service_completed_at, ManifestRevision.manifest_id)
    zone = city_zone(jurisdiction_id)
    day = local_day(ManifestRevision.service_completed_at, zone)
    services = (
        select(
            ManifestRevision.device_id.label("device_id"),
            day.label("day"),
            (ManifestRevision.fog_depth_in + ManifestRevision.solids_depth_in).label("inches"),
            func.lag(day).over(partition_by=ManifestRevision.device_id, order_by=order).label("previous_day"),
            func.lag(ManifestRevision.qualifying)
            .over(partition_by=ManifestRevision.device_id, order_by=order)
            .label("previous_qualifying"),
        )
        .join(
            Manifest,
            and_(Manifest.id == ManifestRevision.manifest_id, Manifest.current_revision == ManifestRevision.revision),
        )
        .join(Device, Device.id == ManifestRevision.device_id)
        .where(
            Manifest.jurisdiction_id == jurisdiction_id,
            Device.kind == "interceptor",
            *serviced_within(begin, as_of, zone),
        )
    )
    if fse_id:
        services = services.where(Manifest.fse_id == fse_id)
    services = services.subquery("services")
    intervals = (
        select(
            services.c.device_id,
            func.count().label("intervals"),
            func.sum(services.c.inches).label("inches"),
            func.sum(services.c.day - services.c.previous_day).label("days"),
            func.min(services.c.previous_day).label("from_day"),
            func.max(services.c.day).label("to_day"),
        )
        .where(
            services.c.previous_qualifying == true(),
            services.c.inches.is_not(None),
            services.c.day > services.c.previous_day,
            services.c.day >= first_day,
        )
        .group_by(services.c.device_id)
        .having(func.count() >= min_intervals)
        .subquery("measured")
    )
    return (
        select(
            Fse.id.label("fse_id"),
            Fse.name.label("fse_name"),
            Fse.address.label("address"),
            Permit.permit_number.label("permit_number"),
            Device.id.label("device_id"),
            Device.tag.label("device_tag"),
            Device.liquid_depth_in.label("liquid_depth_in"),
            _capped(frequency_in_force(Device.id, Device.frequency_days, as_of)).label("frequency_days"),
            intervals.c.intervals,
            intervals.c.inches,
            intervals.c.days,
            intervals.c.from_day,
            intervals.c.to_day,
        )
        .select_from(intervals)
        .join(Device, Device.id == intervals.c.device_id)
        .join(Fse, Fse.id == Device.fse_id)
        .join(Permit, Permit.id == Device.permit_id)
        .join(Jurisdiction, Jurisdiction.id == Fse.jurisdiction_id)
        .order_by(Fse.name, Device.tag, Device.id)
    )
