"""Both sides of a load: what the hauler's manifest says it delivered to a disposal site, and
what the site says it received on the same ticket.

A hauler's word alone does not prove where a load went; the site's receipt does. Comparing the
two is exchange policy in every city (no ordinance has sites report loads), once each side has
had its time to arrive.

One load is one ticket of one site on one local day: a site may number a ticket again another day.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from domain.dates import local_date
from domain.presets import POLICY

CITATION = POLICY
# Site scales and truck meters disagree a little on every load: a difference within this share
# of the larger figure is a measurement, beyond it a question.
GALLONS_TOLERANCE = Decimal("0.05")  # exact: a difference of exactly 5% is within it

RECEIPT_MISSING = "receipt_missing"
MANIFEST_MISSING = "manifest_missing"
GALLONS_DIFFER = "gallons_differ"
HAULER_DIFFERS = "hauler_differs"
VEHICLE_DIFFERS = "vehicle_differs"
DISPUTED = "disputed"
CODES = {
    RECEIPT_MISSING: "The manifest names a delivery on a ticket the site has not reported receiving.",
    MANIFEST_MISSING: "The site received a load on a ticket that no manifest names.",
    GALLONS_DIFFER: "The gallons the site received differ from those the manifest delivered.",
    HAULER_DIFFERS: "The site received the ticket's load from another hauler than the manifest's.",
    VEHICLE_DIFFERS: "The site received the ticket's load from another vehicle than the manifest's.",
    DISPUTED: "The disposal site disputes the delivery the manifest names.",
}
# A delivery as its site's clerk sees it: not yet received, received, or disputed by the site.
AWAITING, RECEIVED = "awaiting", "received"


@dataclass(frozen=True)
class Delivered:
    """The manifest's side: its hauler, truck, gallons and time of delivery."""

    hauler_id: object
    vehicle_id: str
    gallons: int
    at: datetime


@dataclass(frozen=True)
class Received:
    """The site's side: the hauler its licence names (None: no hauler fogx knows), the truck,
    the gallons and the time."""

    hauler_id: object
    vehicle_id: str
    gallons: int
    at: datetime


def load_key(site_id, ticket_number: str, at: datetime, zone: str | None) -> tuple:
    """What names one load on both sides: the site, its ticket, and the local day in `zone`
    it was delivered (the manifest) or received (the site's receipt)."""
    return site_id, ticket_number, local_date(at, zone)


def gallons_differ(delivered: int, received: int) -> bool:
    return abs(delivered - received) > GALLONS_TOLERANCE * max(delivered, received)


def compare(delivered: Delivered | None, received: Received | None, *, now: datetime, wait: timedelta) -> list[str]:
    """What the two sides of one ticket disagree on. A side that is missing counts only once
    `wait` (the city's manifest deadline) has passed since the other side's time: a load is
    filed and received in either order."""
    if delivered is None and received is None:
        return []
    if received is None:
        return [RECEIPT_MISSING] if now > delivered.at + wait else []
    if delivered is None:
        return [MANIFEST_MISSING] if now > received.at + wait else []
    found = []
    if gallons_differ(delivered.gallons, received.gallons):
        found.append(GALLONS_DIFFER)
    if received.hauler_id != delivered.hauler_id:
        found.append(HAULER_DIFFERS)
    elif _plate(received.vehicle_id) != _plate(delivered.vehicle_id):
        found.append(VEHICLE_DIFFERS)
    return found


def _plate(vehicle_id: str) -> str:
    """A truck's id as both sides write it, case and spacing aside ("TRK 7" is "trk-7")."""
    return "".join(ch for ch in vehicle_id.upper() if ch.isalnum())
