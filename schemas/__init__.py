"""marshmallow schemas: shape, types, units, enums and cross-field sanity; no database."""
