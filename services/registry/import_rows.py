"""A registry CSV file, read: the documented columns of each kind, its header checked, and each
row's cells loaded through the API's own schemas."""

import csv
import io
import re

from marshmallow import Schema, fields

from schemas import registry as schemas

# The documented columns of each kind, in order; `samples/<kind>.csv` shows each.
COLUMNS = {
    "fses": ["name", "address", "apn", "operator_name", "operator_email"],
    "permits": ["permit_number", "fse_apn", "fse_name", "kind", "status", "issued_on", "expires_on"],
    "devices": ["permit_number", "tag", "kind", "capacity_gallons", "liquid_depth_in", "frequency_days"],
    "haulers": ["name", "licence_number", "licence_expires_on"],
    "vehicles": ["licence_number", "vehicle_id", "tank_capacity_gallons"],
    "disposal-sites": [
        "name",
        "address",
        "facility_permit_number",
        "waste_types",
        "approved_from",
        "approved_until",
        "status",
    ],
}
KINDS = tuple(COLUMNS)
# Columns a file may add: for a device, the day a new frequency or permit takes effect (the
# import never rewrites the past), why, and the notice the permittee had, the day a new one was
# put in service, and the first day one is retired (`reason` says why); for a permit, the same
# of a new status; for a restaurant or a hauler, the address its notices go to while it has no
# people (an empty cell clears it).
OPTIONAL = {
    "devices": [
        "effective_on",
        "reason",
        "noticed_on",
        "sooner_because",
        "after_inspection",
        "in_service_on",
        "retired_on",
    ],
    "permits": ["effective_on", "reason", "notice_on"],
    "fses": ["contact_email"],
    "haulers": ["contact_email"],
}


class ImportError_(ValueError):
    """The file as a whole cannot be imported (unknown kind, wrong header, not CSV)."""


class Rejected(Exception):
    def __init__(self, reason, errors=None):
        super().__init__(reason)
        self.reason = reason
        self.errors = errors or {}


# Row schemas: the API's schemas, minus what the importing admin implies --------------------


class FseRow(schemas.FseIn):
    class Meta:
        exclude = ("jurisdiction",)


class PermitRow(schemas.PermitIn):
    fse_apn = schemas.text(40, required=True)
    fse_name = schemas.text(200, required=True)
    # From when a changed status holds (default the city's today), why, and the notice given.
    effective_on = schemas.Day(load_default=None)
    reason = schemas.text(2000, load_default=None)
    notice_on = schemas.Day(load_default=None)

    class Meta:
        exclude = ("fse_id",)


class HaulerRow(Schema):
    name = schemas.text(200, required=True)
    licence_number = schemas.text(60, required=True)
    licence_expires_on = schemas.Day(required=True)
    contact_email = schemas.contact_address()


class VehicleRow(schemas.VehicleIn):
    licence_number = schemas.text(60, required=True)


class SiteRow(schemas.DisposalSiteIn):
    class Meta:
        exclude = ("jurisdictions",)


class DeviceRow(schemas.DeviceIn):
    # From when a changed frequency or permit holds; without it a row changes neither.
    effective_on = schemas.Day(load_default=None)
    reason = schemas.text(2000, load_default="imported")
    noticed_on = schemas.Day(load_default=None)
    sooner_because = schemas.text(2000, load_default=None)
    after_inspection = fields.Boolean(load_default=False)
    # The first day the device is out of service (the city's today or later).
    retired_on = schemas.Day(load_default=None)


ROW_SCHEMAS = {
    "fses": FseRow(),
    "permits": PermitRow(),
    "devices": DeviceRow(),
    "haulers": HaulerRow(),
    "vehicles": VehicleRow(),
    "disposal-sites": SiteRow(),
}


def cells(schema, row):
    """CSV cells are text: empty cells are missing, numbers and lists are parsed."""
    out = {}
    for name, value in row.items():
        value = (value or "").strip()
        declared = schema.fields.get(name)
        if value == "":
            if declared is not None and declared.allow_none:
                out[name] = None
            continue
        if isinstance(declared, fields.Integer) and re.fullmatch(r"[+-]?\d{1,12}", value):
            value = int(value)
        elif isinstance(declared, fields.Float) and re.fullmatch(r"[+-]?\d{1,12}(\.\d+)?", value):
            value = float(value)
        elif isinstance(declared, fields.List):
            value = [part.strip() for part in value.split(";") if part.strip()]
        out[name] = value
    return out


def read_rows(stream, kind):
    """(line number, row) pairs of a CSV file, after checking its header."""
    if kind not in COLUMNS:
        raise ImportError_(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    text = (
        io.TextIOWrapper(stream, encoding="utf-8-sig", newline="") if not isinstance(stream, io.TextIOBase) else stream
    )
    reader = csv.DictReader(text)
    try:
        header = reader.fieldnames or []
    except (UnicodeDecodeError, csv.Error) as error:
        raise ImportError_(f"not a UTF-8 CSV file: {error}") from error
    missing = [c for c in COLUMNS[kind] if c not in header]
    extra = [c for c in header if c not in COLUMNS[kind] + OPTIONAL.get(kind, [])]
    if missing or extra:
        raise ImportError_(
            f"the header must be {','.join(COLUMNS[kind])} (missing: {missing or 'none'}; unknown: {extra or 'none'})"
        )

    def rows():
        try:
            for row in reader:
                yield reader.line_num, row
        except (UnicodeDecodeError, csv.Error) as error:
            yield reader.line_num, error

    return rows()
