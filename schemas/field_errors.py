"""marshmallow's nested field messages, flattened to the `errors` member of a problem."""


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
