"""How a jurisdiction and its rule parameters look on the wire."""
from marshmallow import Schema, fields

from domain.presets import PARAMETERS


class JurisdictionSchema(Schema):
    id = fields.UUID()
    code = fields.String()
    name = fields.String()
    time_zone = fields.String()
    parameters = fields.Method("_parameters")
    citations = fields.Dict(keys=fields.String(), values=fields.String())

    def _parameters(self, row):
        return {name: getattr(row, name) for name in PARAMETERS}
