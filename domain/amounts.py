"""Depths, gallons and shares as exact decimals, so a value at an ordinance's limit is at it
(8.3 + 4.3 inches of 50.4 is 25%, not a binary fraction past it)."""

from decimal import Decimal

# Depths are measured and stored to the hundredth of an inch.
HUNDREDTH = Decimal("0.01")


def exact(value) -> Decimal | None:
    """`value` as the decimal it was written as; a float (a value typed into a preset, or a
    caller's own) through its shortest form: 8.3, not 8.2999..."""
    if value is None or isinstance(value, Decimal):
        return value
    return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)


def shown(value) -> str:
    """A decimal as people write it: 12.6, 50, 12.61 (no trailing zeros, no exponent)."""
    return format(exact(value).normalize(), "f")


def number(value) -> float | None:
    """A stored decimal for a JSON body, a number as the API has always answered (50.4, 48.0);
    JSON numbers carry the decimal exactly as written."""
    return None if value is None else float(value)
