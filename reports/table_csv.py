"""Any list of flat rows as CSV, streamed line by line."""
import csv
import io


def _safe(value):
    """Cells a spreadsheet would run as a formula are quoted."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") and not _number(text) else text


def _number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def render(rows, columns=None):
    rows = iter(rows)
    first = next(rows, None)
    columns = columns or (list(first) if first else [])
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\r\n", extrasaction="ignore")
    writer.writeheader()
    yield buffer.getvalue()
    for row in ([first] if first else []):
        yield from _line(writer, buffer, row)
    for row in rows:
        yield from _line(writer, buffer, row)


def _line(writer, buffer, row):
    buffer.seek(0)
    buffer.truncate()
    writer.writerow({k: _safe("" if v is None else v) for k, v in row.items()})
    yield buffer.getvalue()
