"""The change feed's query and its entries as JSON."""

from marshmallow import EXCLUDE, Schema, fields, validate

from schemas.manifest_views import iso


class ChangesQuery(Schema):
    class Meta:
        unknown = EXCLUDE  # unknown query parameters are ignored, as HTTP clients expect

    cursor = fields.String(validate=validate.Regexp(r"^[A-Za-z0-9_-]{22}$"))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


def change_view(change, cursor: str) -> dict:
    """One entry: what happened, to which manifest, and the cursor that follows it; what a
    kind tells besides (the findings, the scans) is in its own fields."""
    return {
        "cursor": cursor,
        "kind": change.kind,
        "at": iso(change.at),
        "manifest_id": str(change.manifest_id),
        "manifest_number": change.manifest_number,
        "revision": change.revision,
        "fse_id": str(change.fse_id),
        "hauler_id": str(change.hauler_id),
        **change.detail,
    }
