"""The demo data `make run` loads: five presets, a few FSEs, a hauler, a site, a client per
role, the hauler's services of the year before and the disposal site's receipts of them.

Every date is counted from the day the demo is loaded (the clock's), so that the walkthrough in
the README shows the same picture whenever it is tried: one missed service, two frequencies the
measurements say to change, permits and licences in force.

The demo clients have fixed, documented credentials, and so do the demo's people
(`services.demo.people`); nothing else creates fixed secrets.
"""

import uuid
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import select

from auth.principal import principal_of
from domain import clock
from domain.presets import PRESETS
from schemas.manifest import ManifestIn
from schemas.receipts import ReceiptIn
from services.demo import people as demo_people
from services.disposal import receipts
from services.filing import manifests
from services.people.clients import create_client
from services.registry.jurisdictions import add_from_preset
from storage.models import (
    Device,
    DevicePermitMove,
    DisposalSite,
    DisposalSiteJurisdiction,
    DisposalSiteStatusChange,
    Fse,
    Hauler,
    HaulerLicence,
    HaulerRegistration,
    OAuthClient,
    Permit,
    PermitStatusChange,
    Vehicle,
)

# The site the filing examples in openapi.yaml name: a vendor trying them on `make run` files
# a compliant manifest, not one raising an unknown disposal site.
DEMO_SITE_ID = uuid.UUID("6b1f3c2e-8d4a-4f7e-9a51-2c9e0d7b4a13")
DEMO_CLIENTS = {
    # client_id: (role, secret)
    "demo-hauler": ("hauler", "demo-hauler-secret"),
    "demo-fse": ("fse", "demo-fse-secret"),
    "demo-auditor": ("auditor", "demo-auditor-secret"),
    "demo-admin": ("admin", "demo-admin-secret"),
    "demo-site": ("site", "demo-site-secret"),
}

# The contact address of a restaurant or hauler, where its notices go while it has no people:
# Taqueria El Sol has none yet; the hauler's office has its people, and its address on record.
CONTACTS = {"Taqueria El Sol": "contacto@elsol.example", "Inland Grease Services": "office@inlandgrease.example"}

FSES = [
    # name, address, apn, city, permit number, devices [(tag, kind, gallons, depth, days)]
    (
        "Mesa Grill",
        "14500 Bear Valley Rd, Victorville, CA 92392",
        "3087-211-05",
        "victorville",
        "VV-FOG-0001",
        [("GI-1", "interceptor", 1500, 48, 90)],
    ),
    (
        "Golden Wok",
        "12120 Hesperia Rd, Victorville, CA 92395",
        "0479-031-22",
        "victorville",
        "VV-FOG-0002",
        [("GT-1", "trap", 50, 12, 30), ("GI-1", "interceptor", 1000, 48, 60)],
    ),
    (
        "Taqueria El Sol",
        "1015 W 11th St, Tracy, CA 95376",
        "235-110-07",
        "tracy",
        "TR-FOG-0101",
        [("GI-1", "interceptor", 2000, 54, 90)],
    ),
]

# The hauler's services of the year before the demo is loaded, each filed three hours after it
# was done: the binder, the audit lists and the frequency recommendations have a year to show.
# FSE, device tag, days from the first service to the load day, days between services, services,
# depths measured (FOG, solids; inches) or None.
HISTORY = [
    # Mesa Grill: 6.5 in a quarter, half its 12-in limit: the data allow a longer interval. Its
    # last service was 88 days ago: due in two days.
    ("Mesa Grill", "GI-1", 358, 90, 4, (4.0, 2.5)),
    # Golden Wok: 15 in in 60 days, past its limit: serviced too seldom, and its last service,
    # due 48 days ago, missed.
    ("Golden Wok", "GI-1", 348, 60, 5, (9.0, 6.0)),
    ("Golden Wok", "GT-1", 171, 30, 6, None),
]


def load(session, base_url="http://127.0.0.1:8000"):
    """Load the demo data once; a second run changes nothing. Returns what it did. `base_url` is
    the instance's public address, where the demo app sends people back to."""
    today = clock.now().date()
    for code in PRESETS:
        add_from_preset(session, code=code)
    if session.scalar(select(OAuthClient).where(OAuthClient.client_id == "demo-admin")):
        return "demo data already loaded"
    jurisdictions = {code: add_from_preset(session, code=code)[0] for code in PRESETS}

    fses, devices_by_name = [], {}
    for name, address, apn, city, permit_number, devices in FSES:
        fse = Fse(
            jurisdiction_id=jurisdictions[city].id,
            name=name,
            address=address,
            apn=apn,
            operator_name=f"{name} manager",
            operator_email="manager@example.com",
            contact_email=CONTACTS.get(name),
        )
        permits = _permits(fse, permit_number, jurisdictions[city].permit_term, today)
        session.add_all([fse, *permits])
        permit = permits[-1]
        for tag, kind, gallons, depth, days in devices:
            device = devices_by_name[(name, tag)] = Device(
                fse=fse,
                permit=permit,
                tag=tag,
                kind=kind,
                capacity_gallons=gallons,
                liquid_depth_in=depth,
                frequency_days=days,
            )
            # Renewed each term: the device moved to each new permit on its first day.
            for before, after in zip(permits, permits[1:], strict=False):
                device.permit_moves.append(
                    DevicePermitMove(
                        from_permit=before, to_permit=after, effective_on=after.issued_on, reason="Renewal"
                    )
                )
            session.add(device)
        fses.append(fse)

    cities = [jurisdictions[city].id for city in ("victorville", "tracy")]
    hauler = Hauler(
        name="Inland Grease Services",
        licence_number="IGS-44812",
        contact_email=CONTACTS["Inland Grease Services"],
        owner_jurisdiction_id=cities[0],
    )
    for city_id in cities:
        hauler.licences.append(
            HaulerLicence(
                jurisdiction_id=city_id,
                licence_number=hauler.licence_number,
                expires_on=date(today.year + 2, 6, 30),
                effective_on=date(today.year - 2, 7, 1),
            )
        )
        hauler.registrations.append(
            HaulerRegistration(jurisdiction_id=city_id, registered_on=date(today.year - 2, 7, 1))
        )
        hauler.vehicles.append(Vehicle(jurisdiction_id=city_id, vehicle_id="TRK-7", tank_capacity_gallons=3000))
    approved_from = date(today.year - 3, 1, 1)
    site = DisposalSite(
        id=DEMO_SITE_ID,
        name="High Desert Renewables",
        address="17150 Smoke Tree St, Hesperia, CA 92345",
        facility_permit_number="HDR-22-0091",
        owner_jurisdiction_id=cities[0],
        approvals=[
            DisposalSiteJurisdiction(
                jurisdiction_id=city_id,
                waste_types=["grease_interceptor_waste", "grease_trap_waste"],
                approved_from=approved_from,
                approved_until=None,
                status_changes=[DisposalSiteStatusChange(status="approved", effective_on=approved_from)],
            )
            for city_id in cities
        ],
    )
    session.add_all([hauler, site])
    session.commit()

    subjects = {
        "hauler": [str(hauler.id)],
        "fse": [str(fses[0].id), str(fses[1].id)],
        "auditor": ["victorville"],
        "admin": ["victorville"],
        "site": [str(site.id)],
    }
    clients = {}
    # The site has reported its loads since before the history began.
    with clock.frozen_at(datetime.combine(today - timedelta(days=365), time(8), tzinfo=UTC)):
        for client_id, (role, secret) in DEMO_CLIENTS.items():
            clients[role], _ = create_client(
                session,
                role=role,
                subject=subjects[role],
                client_id=client_id,
                client_secret=secret,
                name=f"Demo {role}",
            )
    demo_people.load(
        session, hauler=hauler, fses=fses[:2], city=jurisdictions["victorville"], site=site, base_url=base_url
    )
    loads = _file_history(session, principal_of(clients["hauler"]), devices_by_name, today)
    _receive(session, principal_of(clients["site"]), loads, today)
    return "demo data loaded"


# The site's side of the history: it received every load as filed, but for Golden Wok's
# interceptor load of 108 days ago, which it has no record of, and the trap's last, which
# weighed in lighter than the manifest says; and it received a load from the demo hauler ten
# days ago that no manifest names.
NOT_RECEIVED = ("Golden Wok", "GI-1", 108)
LIGHTER = ("Golden Wok", "GT-1", 21)
UNFILED = ("HDR-09001", 10, 2900)  # ticket, days ago, gallons


def _permits(fse, number, term, today) -> list:
    """The FSE's permits from two years before the load day through this one: one for the whole
    span where the city's text sets no term (Tracy), else one a term, each renewing the last
    (Victorville 10.03.080(a): "issued for a one-year period and shall be renewed annually").
    The one in force today carries `number`; each earlier one, its number and the year issued."""
    first, last = date(today.year - 2, 1, 1), date(today.year + 1, 12, 31)
    years = term["years"] if term else None
    spans = [(first, last)]
    if years:
        starts = range(first.year, today.year + 1, years)
        spans = [(date(year, 1, 1), date(year + years - 1, 12, 31)) for year in starts]
    permits = []
    for index, (issued_on, expires_on) in enumerate(spans):
        current = index == len(spans) - 1
        permit = Permit(
            jurisdiction_id=fse.jurisdiction_id,
            fse=fse,
            permit_number=number if current else f"{number}-{issued_on.year}",
            kind="regular",
            issued_on=issued_on,
            expires_on=expires_on,
        )
        permit.status_changes.append(PermitStatusChange(status="active", effective_on=issued_on))
        permits.append(permit)
    return permits


def _receive(session, principal, loads, today):
    schema = ReceiptIn()
    for fse_name, tag, days_ago, ticket, waste, gallons, delivered in loads:
        if (fse_name, tag, days_ago) == NOT_RECEIVED:
            continue
        received = gallons * 5 // 6 if (fse_name, tag, days_ago) == LIGHTER else gallons
        _receipt(session, principal, schema, ticket, waste, received, delivered + timedelta(minutes=10))
    ticket, days_ago, gallons = UNFILED
    _receipt(
        session,
        principal,
        schema,
        ticket,
        "grease_interceptor_waste",
        gallons,
        datetime.combine(today - timedelta(days=days_ago), time(18), tzinfo=UTC),
    )


def _receipt(session, principal, schema, ticket, waste, gallons, at):
    body = {
        "ticket_number": ticket,
        "hauler_licence_number": "IGS-44812",
        "vehicle_id": "TRK 7",
        "waste_type": waste,
        "gallons_received": gallons,
        "received_at": at.isoformat(),
    }
    with clock.frozen_at(at + timedelta(minutes=1)):
        receipts.submit(session, principal, data=schema.load(body))


def _permit_on(device, day):
    """The permit the device was on on `day`, which the hauler names in its filing."""
    return next((move.from_permit for move in device.permit_moves if day < move.effective_on), device.permit)


def _file_history(session, principal, devices, today) -> list[tuple]:
    """HISTORY filed through the same checks as any filing, each at the time it was received;
    each load as (FSE, device tag, days ago, ticket, waste type, gallons, delivered at)."""
    schema = ManifestIn()
    number, loads = 0, []
    for fse_name, tag, days_ago, every, services, depths in HISTORY:
        device = devices[(fse_name, tag)]
        first = today - timedelta(days=days_ago)
        for n in range(services):
            number += 1
            completed = datetime.combine(first + timedelta(days=every * n), time(16), tzinfo=UTC)
            gallons = round(device.capacity_gallons * 0.97)
            spread = 1 + 0.05 * (n % 3 - 1)  # depths a little apart from one service to the next
            body = {
                "manifest_number": f"IGS-{number:04d}",
                "permit_number": _permit_on(device, completed.date()).permit_number,
                "device_tag": tag,
                "vehicle_id": "TRK-7",
                "driver_name": "Sam Ortiz",
                "fse_signer_name": f"{fse_name} manager",
                "service_started_at": (completed - timedelta(hours=1)).isoformat(),
                "service_completed_at": completed.isoformat(),
                "waste_type": "grease_interceptor_waste" if device.kind == "interceptor" else "grease_trap_waste",
                "gallons_removed": gallons,
                "decant_returned_gallons": 0,
                "full_pump_down": True,
                "measurements": (
                    {"fog_depth_in": round(depths[0] * spread, 1), "solids_depth_in": round(depths[1] * spread, 1)}
                    if depths
                    else None
                ),
                "disposal": {
                    "site_id": str(DEMO_SITE_ID),
                    "ticket_number": f"HDR-{number:05d}",
                    "delivered_at": (completed + timedelta(hours=2)).isoformat(),
                    "gallons_delivered": gallons,
                },
            }
            with clock.frozen_at(completed + timedelta(hours=3)):
                manifests.submit(session, principal, data=schema.load(body))
            loads.append(
                (
                    fse_name,
                    tag,
                    (today - completed.date()).days,
                    body["disposal"]["ticket_number"],
                    body["waste_type"],
                    gallons,
                    completed + timedelta(hours=2),
                )
            )
    return loads
