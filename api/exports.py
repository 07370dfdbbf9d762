"""Heavy reads in a pool of their own: sheets, binders and ZIPs are passed on to `EXPORTS_URL`.

Turning a year of rows into CSV, PDF or ZIP holds a Python interpreter for seconds. Served by
the workers that take filings, it would stall every filing thread beside it. Where
`EXPORTS_URL` is set (`make run` sets it), an app server answers such a request by passing it on
to the export pool there (the same app, run at a lower CPU priority, so that the operating
system gives the filings' workers the CPU first) and relays its answer as it comes. Unset, or in
the export pool itself, the request is served here. Any number of app servers and export
pools work alike: `EXPORTS_URL` may name a load balancer in front of several.
"""

import urllib3
from flask import Response, request

from api.errors import ServiceUnavailable

# Every list that downloads as a sheet, and the restaurant's record in its files.
SHEETS = frozenset(
    {
        "audit.missed_services",
        "audit.findings",
        "audit.frequency_recommendations",
        "audit.disposal_reconciliation",
        "audit.due",
        "audit.service_status",
        "people.record_access_log",
        "people.registry_change_list",
    }
)
RECORDS = "records.get_records"
RECORD_DOWNLOAD = "records.download_records"  # /records/{format}: csv, pdf or zip, all of them heavy
RECORD_FILES = {"text/csv": "csv", "application/pdf": "pdf", "application/zip": "zip"}
# Sent on a passed request, so that a pool that names itself in EXPORTS_URL serves it, not loops.
PASSED = "Fogx-Export-Pool"
# What is not passed on either way: each hop's own (RFC 9110 section 7.6.1), and the length of a
# body relayed as it comes.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)


def heavy(endpoint, args, accept) -> bool:
    """Whether a request is a download that can run long: a list asked for as CSV, a record as
    CSV, PDF or ZIP. The format is read as the views read it: `format=`, or else the Accept header."""
    asked = args.get("format")
    if endpoint in SHEETS:
        return asked == "csv" if asked else accept.best == "text/csv"
    if endpoint == RECORD_DOWNLOAD:
        return True
    if endpoint == RECORDS:
        if asked:
            return asked in RECORD_FILES.values()
        best = accept.best_match(["application/json", *RECORD_FILES]) if accept else None
        return best in RECORD_FILES
    return False


def init_app(app):
    """Pass heavy reads on to `EXPORTS_URL`, where it is set."""
    base = app.config["EXPORTS_URL"].rstrip("/")
    if not base:
        return
    pool = urllib3.PoolManager(
        maxsize=16, retries=False, timeout=urllib3.Timeout(connect=5, read=app.config["EXPORTS_READ_TIMEOUT_SECONDS"])
    )

    @app.before_request
    def _pass_on():
        if (
            request.method != "GET"
            or request.headers.get(PASSED)
            or not heavy(request.endpoint, request.args, request.accept_mimetypes)
        ):
            return None
        return _relay(pool, base)


def _relay(pool, base) -> Response:
    headers = {name: value for name, value in request.headers.items() if name.lower() not in HOP_BY_HOP}
    headers[PASSED] = "1"
    # Appended to as a proxy does: the pool trusts one proxy more than the app server
    # (TRUSTED_PROXIES), and so sees the caller's address and scheme as the app server does.
    hop = request.environ.get("werkzeug.proxy_fix.orig", request.environ)
    for header, value in (("X-Forwarded-For", hop["REMOTE_ADDR"]), ("X-Forwarded-Proto", hop["wsgi.url_scheme"])):
        headers[header] = ", ".join(filter(None, (request.headers.get(header), value)))
    target = base + request.full_path.rstrip("?")
    try:
        answer = pool.request("GET", target, headers=headers, preload_content=False, redirect=False)
    except urllib3.exceptions.HTTPError as error:
        raise ServiceUnavailable("The export pool did not answer; retry.", headers={"Retry-After": "5"}) from error

    def body():
        try:
            yield from answer.stream(64 * 1024, decode_content=False)
        finally:
            answer.release_conn()

    kept = [(name, value) for name, value in answer.headers.items() if name.lower() not in HOP_BY_HOP]
    if "content-length" in answer.headers and "content-encoding" not in answer.headers:
        kept.append(("Content-Length", answer.headers["content-length"]))
    return Response(body(), status=answer.status, headers=kept)
