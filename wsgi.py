"""The WSGI entry point: `gunicorn wsgi:app`, `flask --app wsgi ...`."""

import gc

from api import create_app

app = create_app()
# What the app loaded stays for the life of the process: keep it out of the collector's
# scans, so a collection is short and a request does not wait on one.
gc.freeze()
