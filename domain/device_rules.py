"""The service frequencies a city lets a device have, and the one it gives a device the city
set none for.

`city` is anything with the jurisdiction's parameters as attributes (`allowed_frequencies`,
`interceptor_max_interval_days`, the default frequencies, `citations`).
"""
from domain.presets import POLICY


def default_frequency(kind: str, city) -> int:
    """The city's frequency for a device of `kind` whose own was not set (e.g. Colusa
    15A-16(C)(3) and Tracy 5.26 (e)(3): interceptors quarterly; Placentia 16.24 Facilities
    Requirements (c)(3): traps daily)."""
    if kind == "interceptor":
        return city.interceptor_default_frequency_days
    return city.trap_default_frequency_days


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
    longest = city.interceptor_max_interval_days
    if kind == "interceptor" and longest and days > longest:
        return (f"An interceptor must be serviced at least every {longest} days "
                f"({citations.get('interceptor_max_interval_days') or POLICY}).")
    return None
