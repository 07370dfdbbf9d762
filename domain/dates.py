"""Calendar arithmetic the ordinances need, and the city's local reading of an instant."""

from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

DEFAULT_ZONE = "America/Los_Angeles"


def add_years(day: date, years: int) -> date:
    """The same calendar day `years` later (or earlier); 29 February becomes 1 March."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28) + timedelta(days=1)


def add_months(day: date, months: int) -> date:
    """The same day of the month `months` calendar months later; a month without that day gives
    its last day (31 August plus six months is 28 or 29 February), as PostgreSQL's date
    arithmetic does (exchange policy: the texts that count in months do not say)."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    following = date(year + month // 12, month % 12 + 1, 1)
    return date(year, month, min(day.day, (following - timedelta(days=1)).day))


@lru_cache(maxsize=16)
def months_span_days(months: int) -> tuple[int, int]:
    """The fewest and the most days `months` calendar months can span (six months: 181, from
    31 August, to 184, from 31 July)."""
    first = date(2023, 1, 1)
    spans = [(add_months(day, months) - day).days for day in (first + timedelta(days=n) for n in range(4 * 366))]
    return min(spans), max(spans)


@lru_cache(maxsize=64)
def zone(name: str | None) -> ZoneInfo:
    return ZoneInfo(name or DEFAULT_ZONE)


def local(instant: datetime, zone_name: str | None) -> datetime:
    """`instant` on the city's wall clock (stored instants are UTC)."""
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=UTC)
    return instant.astimezone(zone(zone_name))


def local_date(instant: datetime, zone_name: str | None) -> date:
    """The city's calendar day of `instant`: a service at 23:30 Pacific is that day's."""
    return local(instant, zone_name).date()


def start_of_day(day: date, zone_name: str | None) -> datetime:
    """The instant (UTC) the city's day `day` begins."""
    return datetime.combine(day, datetime.min.time(), zone(zone_name)).astimezone(UTC)


def human(instant: datetime | None, zone_name: str | None) -> str:
    """The one way a person reads a time: local, with its offset (2026-06-30 23:30 -07:00)."""
    if instant is None:
        return ""
    moment = local(instant, zone_name)
    offset = moment.strftime("%z")
    return f"{moment:%Y-%m-%d %H:%M} {offset[:3]}:{offset[3:]}"
