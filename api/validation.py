"""Reading request bodies: JSON only, parsed strictly, loaded through a marshmallow schema."""
import json

from flask import g, request
from marshmallow import ValidationError

from api.errors import BadRequest, UnsupportedMediaType, ValidationFailed


def flatten_errors(messages, prefix=""):
    """marshmallow's nested messages as {"a.b.0.c": ["..."]}."""
    flat = {}
    if isinstance(messages, dict):
        for key, value in messages.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if key == "_schema":
                path = prefix or "$"
            flat.update(flatten_errors(value, path))
    elif isinstance(messages, list) and messages and all(isinstance(m, str) for m in messages):
        flat.setdefault(prefix or "$", []).extend(messages)
    elif isinstance(messages, list):
        for value in messages:
            flat.update(flatten_errors(value, prefix))
    else:
        flat.setdefault(prefix or "$", []).append(str(messages))
    return flat


def _no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise BadRequest(f"The JSON body repeats the key {key!r}.")
        seen[key] = value
    return seen


def _reject_constant(name):
    raise BadRequest(f"The JSON body contains {name}, which is not a number.")


def parse_json(raw: bytes):
    """Strict JSON: UTF-8, no duplicate keys, no NaN or Infinity, bounded nesting."""
    try:
        text = raw.decode("utf-8")
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except UnicodeDecodeError:
        raise BadRequest("The body is not UTF-8.")
    except RecursionError:
        raise BadRequest("The JSON body is nested too deeply.")
    except ValueError as error:
        raise BadRequest(f"The body is not valid JSON: {error}.")


def json_body():
    if request.mimetype != "application/json":
        raise UnsupportedMediaType("Send the body as application/json.")
    # Parsed once a request: a route may read the body before its view does (auth.server.Alongside).
    data = g.get("json_body")
    if data is None:
        data = g.json_body = parse_json(request.get_data(cache=True))
    if not isinstance(data, dict):
        raise ValidationFailed("The body must be a JSON object.", errors={"$": ["Must be an object."]})
    return data


def load(schema, data, **kwargs):
    """Load `data` through `schema`; every field error at once, as a 422."""
    try:
        return schema.load(data, **kwargs)
    except ValidationError as error:
        raise ValidationFailed(
            "The body has field errors; see `errors`.", errors=flatten_errors(error.messages)
        )


def load_json(schema, **kwargs):
    return load(schema, json_body(), **kwargs)
