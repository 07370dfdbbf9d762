"""gunicorn's threaded worker, answering the requests gunicorn refuses before the app sees them
(a request line or header past its limits, a malformed line or header) with problem+json like
every other refusal, where gunicorn's own answer is an HTML page."""

from gunicorn.http import errors as http
from gunicorn.util import write_nonblock
from gunicorn.workers.gthread import ThreadWorker

from api.errors import problem_response

# gunicorn's refusals: (status, problem type, title), each a 4xx. An unknown transfer coding is
# 400, not gunicorn's 501: the body's length cannot be told (RFC 9112 section 6.3).
REFUSALS = {
    http.LimitRequestLine: (414, "uri-too-long", "URI too long"),
    http.LimitRequestHeaders: (431, "header-fields-too-large", "Request header fields too large"),
    http.UnsupportedTransferCoding: (400, "transfer-coding-unsupported", "Transfer coding not supported"),
    http.ExpectationFailed: (417, "expectation-failed", "Expectation failed"),
    **{
        kind: (400, "bad-request", "Bad request")
        for kind in (
            http.InvalidRequestLine,
            http.InvalidRequestMethod,
            http.InvalidHTTPVersion,
            http.InvalidHeader,
            http.InvalidHeaderName,
            http.ObsoleteFolding,
            http.InvalidChunkSize,
            http.ChunkMissingTerminator,
            http.InvalidChunkExtension,
        )
    },
}

DETAIL_CHARS = 200


def refusal(app, exc) -> bytes | None:
    """The whole HTTP response to a request gunicorn refused with `exc`, or None where `exc`
    is not the client's doing."""
    known = next((REFUSALS[kind] for kind in type(exc).__mro__ if kind in REFUSALS), None)
    if known is None:
        return None
    status, slug, title = known
    with app.app_context():
        # What gunicorn says of the request, cut short: a malformed line may be 8 KB of anything.
        response = problem_response(status, slug, title, f"{title}: {str(exc)[:DETAIL_CHARS]}")
    body = response.get_data()
    head = (
        f"HTTP/1.1 {response.status}\r\nConnection: close\r\n"
        f"Content-Type: {response.content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode("latin-1") + body


class Worker(ThreadWorker):
    def handle_error(self, req, client, addr, exc):
        answer = refusal(self.wsgi, exc)
        if answer is None:
            return super().handle_error(req, client, addr, exc)
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            write_nonblock(client, answer)
        except OSError:
            self.log.debug("Failed to send error message.")
