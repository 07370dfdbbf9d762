"""Any list of flat rows as CSV, streamed line by line; instants as a person reads them."""

import csv
import io
import itertools
import re
from datetime import datetime

from domain.dates import human

# An RFC 3339 instant as the JSON rows carry it (`2026-06-30T06:30:00Z`).
INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})")


# What a spreadsheet runs as a formula when a cell starts with it; it drops a leading TAB or
# CR and reads on, so those lead a formula too.
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def _safe(value):
    """Cells a spreadsheet would run as a formula are quoted."""
    text = str(value)
    return "'" + text if text[:1] in FORMULA_LEADS and not _number(text) else text


def _number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def _local(value, zone):
    """An instant in the city's local time with its offset (the one human format)."""
    if isinstance(value, str) and INSTANT.fullmatch(value):
        return human(datetime.fromisoformat(value.replace("Z", "+00:00")), zone)
    return value


def render(rows, columns=None, zone=None):
    """`zone`: the time zone the sheet's reader keeps; each instant is written in it."""
    rows = iter(rows)
    if zone is not None:
        rows = ({k: _local(v, zone) for k, v in row.items()} for row in rows)
    first = next(rows, None)
    columns = columns or (list(first) if first else [])
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\r\n", extrasaction="ignore")
    writer.writeheader()
    # The header goes at once; then lines in chunks, not one write to the socket each.
    yield _taken(buffer)
    for row in itertools.chain([first] if first else [], rows):
        writer.writerow({k: _safe("" if v is None else v) for k, v in row.items()})
        if buffer.tell() >= CHUNK:
            yield _taken(buffer)
    if buffer.tell():
        yield _taken(buffer)


CHUNK = 32 * 1024


def _taken(buffer) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text
