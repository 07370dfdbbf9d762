"""Years of manifests written into a synthetic city with COPY: realistic shares of late, partial,
unconfirmed and decanted services, each revision hashed into its chain and linked to its
device's qualifying service before it, as the API keeps them."""

import json
from datetime import timedelta

import psycopg

from domain import chain
from storage.models import new_id

LATE, PARTIAL, NO_DISPOSAL, DECANT = 0.08, 0.05, 0.03, 0.01
# Interceptor services whose hauler measured the FOG and solids depths before pumping.
MEASURED = 0.6


def iso(moment):
    return moment.isoformat().replace("+00:00", "Z")


def depths(body):
    """The FOG and solids depths a body says were measured before pumping, or two Nones."""
    measured = body["measurements"] or {}
    return measured.get("fog_depth_in"), measured.get("solids_depth_in")


# The columns the bulk load writes.
REVISION_COLUMNS = (
    "id",
    "manifest_id",
    "revision",
    "body",
    "sha256",
    "previous_sha256",
    "received_at",
    "device_id",
    "service_started_at",
    "service_completed_at",
    "waste_type",
    "gallons_removed",
    "decant_returned_gallons",
    "full_pump_down",
    "vehicle_id",
    "disposal_site_id",
    "disposal_ticket_number",
    "disposal_delivered_at",
    "disposal_gallons_delivered",
    "fog_depth_in",
    "solids_depth_in",
    "qualifying",
)
FINDING_COLUMNS = ("id", "revision_id", "code", "severity", "message", "citation", "raised_at")


class Manifests:
    """The manifests of a `bench.city.City`: its devices, haulers and sites file them."""

    def add_manifests(self, total, *, years=3, progress=None):
        """Add manifests until the city holds `total`, spread over the last `years` years."""
        want = total - self.manifests
        if want <= 0:
            return
        span = years * 365 * 24 * 3600
        start = self.today - timedelta(seconds=span)
        manifests, revisions, findings = [], [], []
        with psycopg.connect(self.dsn) as conn:
            cur = conn.cursor()
            # The revisions wait beside the table until each knows its device's service before it.
            cur.execute("CREATE TEMPORARY TABLE incoming_revisions (LIKE manifest_revisions INCLUDING DEFAULTS)")
            cur.execute("CREATE TEMPORARY TABLE incoming_findings (LIKE findings INCLUDING DEFAULTS)")
            for i in range(want):
                number = self.manifests + i
                device = self.devices[number % len(self.devices)]
                device_id, fse_id, permit_id, jid, kind, capacity, permit_number, tag, frequency = device
                hauler_id, vehicles = self.haulers[number % len(self.haulers)]
                completed = start + timedelta(seconds=self.random.randrange(span - 7200))
                late = self.random.random() < LATE
                partial = self.random.random() < PARTIAL
                no_disposal = self.random.random() < NO_DISPOSAL
                decant = self.random.random() < DECANT
                received = completed + timedelta(
                    hours=self.random.uniform(80, 300) if late else self.random.uniform(1, 48)
                )
                gallons = int(capacity * (0.5 if partial else self.random.uniform(0.92, 1.0)))
                site = self.sites[number % len(self.sites)]
                ticket = f"T-{number:08d}"
                body = {
                    "manifest_number": f"B-{number:08d}",
                    "permit_number": permit_number,
                    "device_tag": tag,
                    "vehicle_id": vehicles[number % 3],
                    "driver_name": "Driver",
                    "fse_signer_name": "Signer",
                    "service_started_at": iso(completed - timedelta(hours=1)),
                    "service_completed_at": iso(completed),
                    "waste_type": "grease_interceptor_waste" if kind == "interceptor" else "grease_trap_waste",
                    "gallons_removed": gallons,
                    "decant_returned_gallons": 100 if decant else 0,
                    "full_pump_down": not partial,
                    "measurements": self._measured(kind),
                    "disposal": None
                    if no_disposal
                    else {
                        "site_id": str(site),
                        "ticket_number": ticket,
                        "delivered_at": iso(completed + timedelta(hours=2)),
                        "gallons_delivered": gallons,
                    },
                }
                manifest_id = new_id()
                document = {
                    "manifest_id": str(manifest_id),
                    "hauler_id": str(hauler_id),
                    "revision": 1,
                    "received_at": iso(received),
                    "reason": None,
                    "previous_sha256": None,
                    "manifest": body,
                }
                revision_id = new_id()
                qualifying = not (partial or decant)
                manifests.append(
                    (manifest_id, hauler_id, body["manifest_number"], jid, fse_id, device_id, permit_id, 1, received)
                )
                revisions.append(
                    (
                        revision_id,
                        manifest_id,
                        1,
                        json.dumps(document),
                        chain.seal(document),
                        None,
                        received,
                        device_id,
                        completed - timedelta(hours=1),
                        completed,
                        body["waste_type"],
                        gallons,
                        body["decant_returned_gallons"],
                        not partial,
                        body["vehicle_id"],
                        None if no_disposal else site,
                        None if no_disposal else ticket,
                        None if no_disposal else completed + timedelta(hours=2),
                        None if no_disposal else gallons,
                        *depths(body),
                        qualifying,
                    )
                )
                for code, flagged in (
                    ("late_submission", late),
                    ("partial_pump_down", partial),
                    ("disposal_unconfirmed", no_disposal),
                    ("decant_returned", decant),
                ):
                    if flagged:
                        findings.append(
                            (
                                new_id(),
                                revision_id,
                                code,
                                "violation" if code != "disposal_unconfirmed" else "warning",
                                code.replace("_", " "),
                                "synthetic",
                                received,
                            )
                        )
                if len(manifests) >= 50_000 or i == want - 1:
                    self._copy(
                        cur,
                        "manifests",
                        (
                            "id",
                            "hauler_id",
                            "manifest_number",
                            "jurisdiction_id",
                            "fse_id",
                            "device_id",
                            "permit_id",
                            "current_revision",
                            "created_at",
                        ),
                        manifests,
                    )
                    self._copy(cur, "incoming_revisions", REVISION_COLUMNS, revisions)
                    self._copy(cur, "incoming_findings", FINDING_COLUMNS, findings)
                    conn.commit()
                    if progress:
                        progress(len(manifests))
                    manifests, revisions, findings = [], [], []
            self._link(cur)
            conn.commit()
        self.manifests = total
        self.settle()

    @staticmethod
    def _link(cur):
        """The staged revisions go in, each qualifying one with its device's qualifying service
        before it (`previous_service_at`), as the API keeps them; the revisions already there
        whose service before them is now a staged one are linked again."""
        cur.execute("ANALYZE incoming_revisions")
        cur.execute("SET LOCAL work_mem = '1GB'")  # a county's services are ordered in memory
        cur.execute(
            "CREATE TEMPORARY TABLE linked AS SELECT id, staged, lag(service_completed_at) OVER ("
            " PARTITION BY device_id ORDER BY service_completed_at, manifest_id) AS previous FROM ("
            "  SELECT id, device_id, service_completed_at, manifest_id, true AS staged FROM incoming_revisions"
            "  WHERE qualifying UNION ALL"
            "  SELECT id, device_id, service_completed_at, manifest_id, false FROM manifest_revisions"
            "  WHERE in_force AND qualifying) AS counted"
        )
        names = ", ".join(REVISION_COLUMNS)
        cur.execute(
            f"INSERT INTO manifest_revisions ({names}, previous_service_at)"
            f" SELECT {', '.join('i.' + c for c in REVISION_COLUMNS)}, l.previous FROM incoming_revisions i"
            " LEFT JOIN linked l ON l.id = i.id AND l.staged"
        )
        cur.execute(
            "UPDATE manifest_revisions r SET previous_service_at = l.previous FROM linked l"
            " WHERE l.id = r.id AND NOT l.staged AND r.previous_service_at IS DISTINCT FROM l.previous"
        )
        names = ", ".join(FINDING_COLUMNS)
        cur.execute(f"INSERT INTO findings ({names}) SELECT {names} FROM incoming_findings")
        cur.execute("DROP TABLE incoming_revisions, incoming_findings, linked")

    def _measured(self, kind):
        if kind != "interceptor" or self.measuring.random() >= MEASURED:
            return None
        return {
            "fog_depth_in": round(self.measuring.uniform(1, 9), 1),
            "solids_depth_in": round(self.measuring.uniform(0.5, 5), 1),
        }
