"""The FSE's own cleaning of the grease traps it keeps itself, judged from its maintenance log
where the city's text sets how often (Placentia 16.24 Facilities Requirements (c)(3): "on a
daily basis"; Colusa 15A Art. II grease traps B: "daily removal").

A hauler's pump-out of a trap is a manifest, judged as before; this is the kitchen's own work.
"""

from datetime import date, timedelta


def missing_days(cleaned: set[date], *, start: date, end: date, every_days: int, paused: tuple = ()) -> list[date]:
    """The days from `start` through `end` by which the trap went `every_days` without a
    cleaning in the log: for a daily rule, each day with no entry. A day within `paused`
    ((first day, day in force again), ...: `domain.status.device_pauses`), when the trap's
    permit was suspended or revoked, asks for no cleaning: the service clock stops then too."""
    missing = []
    day = start
    while day <= end:
        window = (day - timedelta(days=offset) for offset in range(every_days))
        if not any(begin <= day < until for begin, until in paused) and not any(d in cleaned for d in window):
            missing.append(day)
        day += timedelta(days=1)
    return missing


def runs(days) -> list[tuple[date, date]]:
    """Consecutive days as (first, last) runs, in order: 1 to 9 May, 25 May to 1 June."""
    spans = []
    for day in sorted(days):
        if spans and day == spans[-1][1] + timedelta(days=1):
            spans[-1] = (spans[-1][0], day)
        else:
            spans.append((day, day))
    return spans
