"""How a jurisdiction, its rule parameters and its table of rules look on the wire."""

from marshmallow import Schema, fields

from domain.presets import PARAMETERS, table


class JurisdictionSchema(Schema):
    id = fields.UUID()
    code = fields.String()
    name = fields.String()
    time_zone = fields.String()
    parameters = fields.Method("_parameters")
    citations = fields.Dict(keys=fields.String(), values=fields.String())
    rules = fields.Method("_rules")

    def _parameters(self, row):
        return {name: getattr(row, name) for name in PARAMETERS}

    def _rules(self, row):
        """Each rule with its value, whether the city's ordinance or exchange policy is behind
        it, the section, and the ordinance's own words."""
        return table(row.code, self._parameters(row), row.citations)
