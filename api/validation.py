"""Reading request bodies: JSON only, parsed strictly, loaded through a marshmallow schema."""

import json
from decimal import Decimal

from flask import request
from marshmallow import ValidationError

from api.errors import BadRequest, UnsupportedMediaType
from schemas.field_errors import flatten_errors
from services.errors import Invalid


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise BadRequest(f"The JSON body repeats the key {key!r}.")
        seen[key] = value
    return seen


def _non_finite(name):
    # NaN and Infinity are read as the floats they name: no field takes one, so the schema
    # refuses the field that holds it (422 naming it) rather than the whole body.
    return float(name)


def parse_json(raw: bytes):
    """Strict JSON: UTF-8, no duplicate keys, bounded nesting; a number with a fraction is the
    decimal it spells (8.3, not the binary float nearest it), so depths are judged as written."""
    try:
        text = raw.decode("utf-8")
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_non_finite, parse_float=Decimal)
    except UnicodeDecodeError:
        raise BadRequest("The body is not UTF-8.") from None
    except RecursionError:
        raise BadRequest("The JSON body is nested too deeply.") from None
    except ValueError as error:
        raise BadRequest(f"The body is not valid JSON: {error}.") from error


def json_body():
    if request.mimetype != "application/json":
        raise UnsupportedMediaType("Send the body as application/json.")
    data = parse_json(request.get_data(cache=True))
    if not isinstance(data, dict):
        raise Invalid("The body must be a JSON object.", errors={"$": ["Must be an object."]})
    return data


def load(schema, data, **kwargs):
    """Load `data` through `schema`; every field error at once, as a 422."""
    try:
        return schema.load(data, **kwargs)
    except ValidationError as error:
        raise Invalid("The body has field errors; see `errors`.", errors=flatten_errors(error.messages)) from error


def load_json(schema, **kwargs):
    return load(schema, json_body(), **kwargs)
