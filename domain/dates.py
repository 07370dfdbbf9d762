"""Calendar arithmetic the ordinances need."""
from datetime import date, timedelta


def add_years(day: date, years: int) -> date:
    """The same calendar day `years` later (or earlier); 29 February becomes 1 March."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28) + timedelta(days=1)
