"""A small world to file manifests in: a Victorville restaurant, a hauler, a disposal site."""

import io
import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import select

from storage.models import Jurisdiction
from tests import factories

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def iso(moment):
    return moment.isoformat().replace("+00:00", "Z")


@dataclass
class World:
    client: object
    session: object
    hauler_token: str
    hauler: object
    device: object
    permit: object
    site: object
    credentials: tuple = ()
    n: int = 0

    def reauthenticate(self):
        """A fresh token, for tests that move the clock past the old one's life."""
        self.hauler_token = factories.token(self.client, *self.credentials)

    def body(self, *, completed=None, **overrides):
        """A clean manifest: full pump-down of the 1,500-gallon interceptor, disposed of.

        Unless told, successive bodies are serviced 2, 27 and 52 hours ago in turn: separate
        services (over 24 h apart) that are all within the 72-hour deadline; each round of three
        70 minutes earlier than the last, so that no two are the same service filed twice.
        """
        self.n += 1
        if completed is None:
            turn, place = divmod(self.n - 1, 3)
            completed = NOW - timedelta(hours=2 + 25 * place, minutes=70 * turn)
        body = {
            "manifest_number": f"M-{self.n:05d}",
            "permit_number": self.permit.permit_number,
            "device_tag": self.device.tag,
            "vehicle_id": "TRK-1",
            "driver_name": "Sam Driver",
            "service_started_at": iso(completed - timedelta(hours=1)),
            "service_completed_at": iso(completed),
            "waste_type": "grease_interceptor_waste",
            "gallons_removed": 1450,
            "decant_returned_gallons": 0,
            "full_pump_down": True,
            "measurements": {"fog_depth_in": 4, "solids_depth_in": 3, "liquid_depth_in": 48},
            "fse_signer_name": "Ana Ruiz",
            "disposal": {
                "site_id": str(self.site.id),
                "ticket_number": f"T-{self.n:05d}",
                "delivered_at": iso(completed + timedelta(hours=1)),
                "gallons_delivered": 1450,
            },
        }
        body.update(overrides)
        if "disposal" not in overrides:
            body["disposal"]["gallons_delivered"] = body["gallons_removed"]
        return body

    def post(self, body, token=None, **kwargs):
        return self.client.post(
            "/v1/manifests",
            json=body,
            headers={**factories.bearer(token or self.hauler_token), **kwargs.pop("headers", {})},
            **kwargs,
        )

    def codes(self, body, **kwargs):
        response = self.post(body, **kwargs)
        assert response.status_code in (200, 201), response.json
        return sorted(f["code"] for f in response.json["findings"])

    def set_rules(self, **parameters):
        jurisdiction = self.session.scalar(select(Jurisdiction).where(Jurisdiction.code == "victorville"))
        for name, value in parameters.items():
            setattr(jurisdiction, name, value)
        self.session.commit()


def build(client, session, *, city="victorville", capacity=1500, frequency=90):
    permit = factories.permit(
        session, fse_row=factories.fse(session, city=city), issued_on=date(2025, 1, 1), expires_on=date(2027, 12, 31)
    )
    device = factories.device(
        session, permit_row=permit, capacity_gallons=capacity, liquid_depth_in=48, frequency_days=frequency
    )
    hauler = factories.hauler(session, cities=(city,), vehicles=(("TRK-1", 3000), ("TRK-2", 1000)))
    site = factories.disposal_site(session, cities=(city,))
    credentials = factories.oauth_client(session, role="hauler", subject=[hauler.id])
    return World(
        client=client,
        session=session,
        hauler_token=factories.token(client, *credentials),
        hauler=hauler,
        device=device,
        permit=permit,
        site=site,
        credentials=credentials,
    )


def other_device(world, session, status="active"):
    """A second restaurant in the same city, with its own permit and interceptor."""
    permit = factories.permit(session, fse_row=factories.fse(session, city="victorville"), status=status)
    return factories.device(session, permit_row=permit)


def filed(world, **overrides):
    body = world.body(**overrides)
    response = world.post(body)
    assert response.status_code == 201, response.json
    return response.json, body


def correct(world, manifest, body, token=None, **changes):
    return world.client.post(
        f"/v1/manifests/{manifest['id']}/corrections",
        json={**body, "reason": "correcting", **changes},
        headers=factories.bearer(token or world.hauler_token),
    )


def shifted(body, hours):
    """The body with its service (and delivery) moved by `hours`."""
    moved = {}
    for name in ("service_started_at", "service_completed_at"):
        moved[name] = iso(_instant(body[name]) + timedelta(hours=hours))
    delivered = _instant(body["disposal"]["delivered_at"]) + timedelta(hours=hours)
    disposal = dict(body["disposal"], delivered_at=iso(delivered))
    return {**body, **moved, "disposal": disposal}


def _instant(value):
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def decide(client, token, correction_id, verb, **body):
    return client.post(f"/v1/audit/corrections/{correction_id}/{verb}", json=body, headers=factories.bearer(token))


def post_multipart(world, body, files, client=None, **form):
    data = {"manifest": json.dumps(body), **form}
    data["documents"] = [(io.BytesIO(content), name) for name, content in files]
    return (client or world.client).post(
        "/v1/manifests", data=data, content_type="multipart/form-data", headers=factories.bearer(world.hauler_token)
    )
