"""Plain test-data builders with keyword defaults; each commits what it builds."""

import itertools
from datetime import date

from services.people.clients import create_client
from services.registry.jurisdictions import add_from_preset
from storage.models import (
    Device,
    DisposalSite,
    DisposalSiteJurisdiction,
    DisposalSiteStatusChange,
    Fse,
    Hauler,
    HaulerLicence,
    HaulerRegistration,
    Permit,
    PermitStatusChange,
    Vehicle,
    new_id,
    unflushed,
)

_seq = itertools.count(1)


def jurisdiction(session, code="victorville"):
    return add_from_preset(session, code=code)[0]


def fse(session, *, city="victorville", name=None, address="1 Main St", apn=None):
    n = next(_seq)
    row = Fse(
        jurisdiction_id=jurisdiction(session, city).id,
        name=name or f"Restaurant {n}",
        address=address,
        apn=apn or f"000-{n:03d}-00",
        operator_name="Operator",
        operator_email="operator@example.com",
    )
    session.add(row)
    session.commit()
    return row


def permit(
    session,
    *,
    fse_row=None,
    number=None,
    kind="regular",
    status="active",
    issued_on=date(2025, 1, 1),
    expires_on=date(2027, 12, 31),
):
    fse_row = fse_row or fse(session)
    row = Permit(
        jurisdiction_id=fse_row.jurisdiction_id,
        fse_id=fse_row.id,
        permit_number=number or f"P-{next(_seq):05d}",
        kind=kind,
        issued_on=issued_on,
        expires_on=expires_on,
    )
    row.status_changes.append(PermitStatusChange(status=status, effective_on=issued_on))
    session.add(row)
    session.commit()
    return row


def device(
    session,
    *,
    permit_row=None,
    tag="GI-1",
    kind="interceptor",
    capacity_gallons=1500,
    liquid_depth_in=48,
    frequency_days=90,
):
    permit_row = permit_row or permit(session)
    row = Device(
        fse_id=permit_row.fse_id,
        permit_id=permit_row.id,
        tag=tag,
        kind=kind,
        capacity_gallons=capacity_gallons,
        liquid_depth_in=liquid_depth_in,
        frequency_days=frequency_days,
    )
    session.add(row)
    session.commit()
    return row


def hauler(
    session, *, name=None, cities=("victorville",), licence_expires_on=date(2028, 6, 30), vehicles=(("TRK-1", 3000),)
):
    """A hauler registered in each of `cities` (the first owns its shared record), each city
    with the same licence and vehicles on its own rows."""
    n = next(_seq)
    city_ids = [jurisdiction(session, city).id for city in cities]
    row = Hauler(
        name=name or f"Hauler {n}", licence_number=f"L-{n:05d}", owner_jurisdiction_id=city_ids[0] if city_ids else None
    )
    for city_id in city_ids:
        row.licences.append(
            HaulerLicence(
                jurisdiction_id=city_id,
                licence_number=row.licence_number,
                expires_on=licence_expires_on,
                effective_on=date(2024, 1, 1),
            )
        )
        row.registrations.append(HaulerRegistration(jurisdiction_id=city_id, registered_on=date(2024, 1, 1)))
        for vehicle_id, gallons in vehicles:
            row.vehicles.append(Vehicle(jurisdiction_id=city_id, vehicle_id=vehicle_id, tank_capacity_gallons=gallons))
    session.add(row)
    session.commit()
    return row


def disposal_site(
    session,
    *,
    cities=("victorville",),
    status="approved",
    waste_types=("grease_interceptor_waste", "grease_trap_waste"),
    approved_from=date(2024, 1, 1),
    approved_until=None,
):
    """A site each of `cities` approves alike (the first owns its shared record)."""
    n = next(_seq)
    city_ids = [jurisdiction(session, c).id for c in cities]
    row = DisposalSite(
        name=f"Site {n}",
        address="9 Plant Rd",
        facility_permit_number=f"FAC-{n:05d}",
        owner_jurisdiction_id=city_ids[0] if city_ids else None,
        approvals=[
            DisposalSiteJurisdiction(
                jurisdiction_id=city_id,
                waste_types=list(waste_types),
                approved_from=approved_from,
                approved_until=approved_until,
                status_changes=[DisposalSiteStatusChange(status=status, effective_on=approved_from)],
            )
            for city_id in city_ids
        ],
    )
    session.add(row)
    session.commit()
    return row


def oauth_client(session, *, role, subject, scopes=None):
    """A client for `role`; returns (client_id, secret)."""
    row, secret = create_client(session, role=role, subject=[str(s) for s in subject], scopes=scopes)
    return row.client_id, secret


def token(http, client_id, secret, scope=None):
    data = {"grant_type": "client_credentials"}
    if scope:
        data["scope"] = scope
    response = http.post("/oauth/token", data=data, auth=(client_id, secret))
    assert response.status_code == 200, response.json
    return response.json["access_token"]


def bearer(access_token):
    return {"Authorization": f"Bearer {access_token}"}


def pdf_bytes(text="SIGNED MANIFEST", pages=1):
    """A real PDF, as a scanner or a dispatch app would produce."""
    import io

    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out)
    for number in range(pages):
        page.drawString(100, 700, f"{text} page {number + 1}")
        page.showPage()
    page.save()
    return out.getvalue()


def png_bytes(size=(64, 48), colour=(120, 140, 160)):
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="PNG")
    return out.getvalue()


def migrated_again(app, session, *, down_to):
    """The app's database taken down to revision `down_to` and up again, with what it holds:
    what a migration's upgrade makes of the rows before it."""
    from storage import migrate

    session.close()
    engine = app.extensions["fogx.engine"]
    engine.dispose()
    migrate.downgrade(engine, down_to)
    migrate.upgrade(engine)
    engine.dispose()


def unflushed_fse(jurisdiction, name):
    """A new FSE with every column set, not yet added to a session (for storage's own inserts)."""
    return unflushed(
        Fse,
        id=new_id(),
        jurisdiction_id=jurisdiction.id,
        name=name,
        address="1 Main St, Victorville, CA",
        apn="001-001-00",
        operator_name="Operator",
        operator_email="op@example.com",
        contact_email=None,
        created_at=jurisdiction.created_at,
        updated_at=jurisdiction.created_at,
    )
