"""The service frequencies a city lets a device have, and the one it gives a device the city
set none for.

`city` is anything with the jurisdiction's parameters as attributes (`allowed_frequencies`,
`interceptor_max_interval_days` or `_months`, the default frequencies, `citations`).
"""

from domain.dates import months_span_days
from domain.presets import POLICY, PRESETS

# "Quarterly" (Colusa 15A-16(C)(3), Tracy 5.26 (e)(3)): three calendar months, counted as the
# longest interval's months are (`domain.dates.add_months`).
QUARTER_MONTHS = 3


def longest_interval_days(city, *, fewest: bool = True) -> int | None:
    """The city's longest interval for interceptors in days: in calendar months, the fewest
    days they can span (a frequency within them whatever day it starts), or the most."""
    if city.interceptor_max_interval_months:
        return months_span_days(city.interceptor_max_interval_months)[0 if fewest else 1]
    return city.interceptor_max_interval_days


def default_frequency(kind: str, city) -> int:
    """The city's frequency for a device of `kind` whose own was not set (e.g. Colusa
    15A-16(C)(3) and Tracy 5.26 (e)(3): interceptors quarterly; Placentia 16.24 Facilities
    Requirements (c)(3): traps daily)."""
    if kind == "interceptor":
        return city.interceptor_default_frequency_days
    return city.trap_default_frequency_days


def default_months(kind: str, city) -> int | None:
    """The calendar months of the city's default frequency for a device of `kind` whose own
    was not established, where the city's text says "quarterly" (Colusa 15A-16(C)(3), Tracy
    5.26 (e)(3): interceptors "quarterly when the frequency described in ... has not been
    established") and the city keeps that default; None: the default runs in days."""
    source = (
        (PRESETS.get(getattr(city, "code", None)) or {}).get("sources", {}).get("interceptor_default_frequency_days")
    )
    if kind != "interceptor" or source is None or "quarterly" not in source.quote:
        return None
    return QUARTER_MONTHS if city.interceptor_default_frequency_days == source.value else None


def frequency_refusal(kind: str, days: int, city) -> str | None:
    """Why the city does not allow a `days` frequency for a device of `kind`, or None.

    Where a city lists the frequencies it assigns (Victorville 10.03.160(b)), only those; an
    interceptor no less often than the city's longest interval (Colusa 15A-16(C)(2); Tracy
    5.26 (e)(2)); otherwise any whole number of days, daily included.
    """
    citations = city.citations or {}
    allowed = city.allowed_frequencies or []
    if allowed and days not in allowed:
        listed = ", ".join(str(d) for d in allowed)
        return f"Must be one of {listed} ({citations.get('allowed_frequencies') or POLICY})."
    # In months, a frequency is refused only where it would pass them whatever day it starts;
    # the months still end every gap that runs past them.
    longest = longest_interval_days(city, fewest=False)
    if kind == "interceptor" and longest and days > longest:
        months = city.interceptor_max_interval_months
        if months:
            return (
                f"An interceptor must be serviced at least every {months} months: no frequency over "
                f"{longest} days ({citations.get('interceptor_max_interval_months') or POLICY})."
            )
        return (
            f"An interceptor must be serviced at least every {longest} days "
            f"({citations.get('interceptor_max_interval_days') or POLICY})."
        )
    return None


def frequency_change_refusal(
    *, today, effective_on, noticed_on, notice_days: int, sooner_because: str | None, last_change_on, citation: str
) -> dict:
    """Why a change of a device's frequency cannot take effect on `effective_on`, by field;
    empty where it can. A change never reaches back before today or the device's last change
    (the past stays judged as it stood), and takes effect no sooner than the city's notice
    period after the permittee was told (e.g. Victorville 10.03.080(c): thirty days), unless
    the city records why sooner."""
    errors = {}
    if noticed_on > today:
        errors["noticed_on"] = ["The permittee cannot have been told after today."]
    if effective_on < today:
        errors["effective_on"] = ["A frequency changes from today on; the days before stay as they were judged."]
    elif last_change_on is not None and effective_on <= last_change_on:
        errors["effective_on"] = [f"Must be after the device's last change, on {last_change_on.isoformat()}."]
    elif (effective_on - noticed_on).days < notice_days and not (sooner_because or "").strip():
        errors["effective_on"] = [
            f"Must be at least {notice_days} days after the permittee was told "
            f"({citation}), or say why sooner in sooner_because."
        ]
    return errors


def permit_move_refusal(*, today, effective_on, issued_on, expires_on, last_move_on) -> dict:
    """Why a device cannot move to a permit (issued `issued_on`, expiring `expires_on`) from
    `effective_on`, by field; empty where it can. A move never reaches back before today or the
    device's last move (a service on the days before stays on the permit it was on), nor
    outside the new permit's term (exchange policy)."""
    if effective_on < today:
        return {"effective_on": ["A device moves from today on; the days before stay on the permit they were on."]}
    if last_move_on is not None and effective_on <= last_move_on:
        return {"effective_on": [f"Must be after the device's last move, on {last_move_on.isoformat()}."]}
    if effective_on < issued_on or effective_on > expires_on:
        return {
            "effective_on": [f"Must be within the permit's term, {issued_on.isoformat()} to {expires_on.isoformat()}."]
        }
    return {}
