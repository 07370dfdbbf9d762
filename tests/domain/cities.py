"""Facts for the pure rule tests: a city's rules from its preset, and a device, permit, hauler,
site and load as the checks see them. Imports nothing of ours but `domain`."""

from dataclasses import fields
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace
from zoneinfo import ZoneInfo

from domain import presets
from domain.facts import DeviceFacts, HaulerFacts, Load, PermitFacts, Rules, SiteFacts
from domain.registry import Licence, Registration

PACIFIC = ZoneInfo("America/Los_Angeles")
CITY = "city-1"  # the jurisdiction's id, as the checks compare it
OTHER_CITY = "city-2"


def pacific(year, month, day, hour=12, minute=0, second=0):
    """An instant on a California wall clock, in UTC as it is stored."""
    return datetime(year, month, day, hour, minute, second, tzinfo=PACIFIC).astimezone(UTC)


def parameters(code: str) -> dict:
    """The city's value of every rule (its ordinance's, else the exchange's)."""
    return {row["rule"]: row["value"] for row in presets.table(code)}


def citations(code: str) -> dict:
    return {row["rule"]: row["citation"] for row in presets.table(code)}


def rules(code: str, **overrides) -> Rules:
    """The checks' parameters of a city created from its preset, `overrides` changed, read as
    the filing reads a jurisdiction's row (`Rules.of`: shares and clearances exact)."""
    values = parameters(code)
    given = {f.name: values[f.name] for f in fields(Rules) if f.name in values}
    given.update(time_zone=presets.PRESETS[code]["time_zone"], citations=citations(code))
    given.update(overrides)
    return Rules.of(SimpleNamespace(**given))


def city(code: str, **overrides) -> SimpleNamespace:
    """A jurisdiction as the device rules read one: each parameter an attribute."""
    return SimpleNamespace(**{**parameters(code), "citations": citations(code), **overrides})


def device(kind="interceptor", *, capacity=1000, depth="48", frequency=90, **kwargs) -> DeviceFacts:
    return DeviceFacts(
        kind=kind, capacity_gallons=capacity, liquid_depth_in=Decimal(depth), frequency_days=frequency, **kwargs
    )


def permit(*, issued=date(2026, 1, 1), expires=date(2026, 12, 31), changes=()) -> PermitFacts:
    return PermitFacts(permit_number="FOG-1", issued_on=issued, expires_on=expires, changes=tuple(changes))


def hauler(*, licence_expires=date(2030, 1, 1), registered=date(2020, 1, 1), ended=None, tank=2500) -> HaulerFacts:
    return HaulerFacts(
        licences=(Licence(date(2020, 1, 1), "LIC-1", licence_expires, "valid"),),
        registrations=(Registration(CITY, registered, ended),),
        vehicles={"TRK-1": tank},
    )


def site(*, approved_until=None, waste_types=("grease_interceptor_waste", "grease_trap_waste")) -> SiteFacts:
    return SiteFacts(
        approved_from=date(2020, 1, 1),
        approved_until=approved_until,
        changes=(),
        waste_types=tuple(waste_types),
        jurisdiction_ids=frozenset({CITY}),
    )


def load(completed=None, **overrides) -> Load:
    """A full pump-down of 1,000 gallons of interceptor waste, an hour's work ending `completed`."""
    completed = completed or pacific(2026, 6, 1, 10)
    values = dict(
        service_started_at=completed - timedelta(hours=1),
        service_completed_at=completed,
        waste_type="grease_interceptor_waste",
        gallons_removed=1000,
        decant_returned_gallons=0,
        full_pump_down=True,
        vehicle_id="TRK-1",
    )
    values.update(overrides)
    return Load(**values)


def codes(findings) -> list[str]:
    return [finding.code for finding in findings]
