"""gunicorn's settings for fogx, read by every `gunicorn wsgi:app` started in this folder.

Workers serve with threads (gunicorn's `gthread`, whose refusals of a malformed request answer
problem+json: api/serving.py): a request's body is read before its token is checked,
so a client that sends its body slowly holds a thread until its last byte, not a whole worker.
In production a TLS-terminating proxy that buffers whole requests stands in front as well.

Each worker marks itself alive by touching a file after every request; the file lives in
memory, so a touch never waits on the journal of the disk the database commits to.
"""

import os

worker_class = "api.serving.Worker"

# No access log of gunicorn's own: the app writes one JSON line per request (api/logs.py), with
# its method, path, status, duration and request id.
accesslog = None
threads = 4  # per worker; `--threads` overrides

# The longest request line gunicorn takes (its maximum): the app answers a URL over
# `api.app.MAX_URL_BYTES` with a problem+json 414 instead of gunicorn's own page.
limit_request_line = 8190

if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"


def post_worker_init(worker):
    """Each worker's background threads start with it (api/worker.py), not with its first
    request: the export pool, asked nothing for hours, still works the notices."""
    from api.worker import start_in_this_process

    start_in_this_process(worker.wsgi)
