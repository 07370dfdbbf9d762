"""Threads in each worker process for the work that follows commits, so that it never waits
for an operator: the outbox (object locks), webhook deliveries, and notices (each city's daily
pass at its local 06:00, and the mail queued since).

Each runs every its interval (`OUTBOX_INTERVAL_SECONDS`, `WEBHOOK_INTERVAL_SECONDS`,
`NOTICE_INTERVAL_SECONDS`; 0 leaves it to its CLI command). The outbox's also runs at once when a request has just committed
entries (`wake`): the lock of a new scan is the thread's work, not the request's, so the
worker that took the upload is free for the next request as soon as the receipt is sent.
"""

import logging
import os
import threading

from flask import current_app

from api.config import webhook_signing_key

log = logging.getLogger("fogx.worker")


def start_background_work(app):
    def drain_outbox():
        from services.outbound import outbox
        from storage.db import db

        outbox.drain(db.session, app.extensions["fogx.store"])

    def deliver_webhooks():
        from services.outbound import webhooks
        from storage.db import db

        webhooks.deliver(
            db.session, signing_key=webhook_signing_key(app.config), allow_local=app.config["WEBHOOK_ALLOW_LOCAL"]
        )

    def send_notices():
        from services.notices import daily, events, outbox
        from storage.db import db

        # Each city's daily pass once its local 06:00 has come (claimed once across instances),
        # then the events of filings, disputes and decisions, then whatever is due to be sent.
        daily.run_due(db.session, app.config)
        events.expand(db.session, app.config)
        outbox.send_due(db.session, app.config)

    _periodic(app, "outbox", app.config["OUTBOX_INTERVAL_SECONDS"], drain_outbox)
    # An app server that passes heavy reads to an export pool (`EXPORTS_URL`) leaves notices to
    # the pool too: its lower CPU priority keeps the mail work from slowing filings.
    notices_every = 0 if app.config["EXPORTS_URL"] else app.config["NOTICE_INTERVAL_SECONDS"]
    _periodic(app, "notices", notices_every, send_notices)
    _periodic(app, "webhooks", app.config["WEBHOOK_INTERVAL_SECONDS"], deliver_webhooks)


def _periodic(app, name, interval, job):
    """`job` every `interval` seconds in a thread of each process, in an app context."""
    if interval <= 0:
        return
    state = app.extensions[f"fogx.{name}_worker"] = {"pid": None, "wake": None, "stopped": False}
    lock = threading.Lock()

    def loop(wake):
        # The first round runs at once, as the process starts serving: the thread's database
        # connection is opened (and its first, slower statements run) before the load arrives,
        # not in the middle of it.
        while True:
            if state["stopped"]:
                return
            with app.app_context():
                try:
                    job()
                except Exception:  # keep the loop alive; the work stays pending
                    log.warning("%s failed", name, exc_info=True)
            wake.wait(interval)
            wake.clear()

    def ensure_running():
        # Started in each process (threads do not survive a fork): on its first request, or as
        # gunicorn starts the worker (`start_in_this_process`).
        if state["pid"] != os.getpid():
            with lock:
                if state["pid"] != os.getpid():
                    wake = threading.Event()
                    thread = threading.Thread(target=loop, args=(wake,), name=f"fogx-{name}", daemon=True)
                    thread.start()
                    state.update(pid=os.getpid(), wake=wake, thread=thread)

    state["start"] = ensure_running
    app.before_request(ensure_running)


def start_in_this_process(app):
    """Start this process's threads of `app` now, before any request: a worker of the export
    pool, which may not be asked anything for hours, still sends the notices."""
    for name, state in app.extensions.items():
        if name.endswith("_worker") and isinstance(state, dict) and "start" in state:
            state["start"]()


def wake(app, name="outbox") -> bool:
    """Have this process's `name` thread run now; False where none runs here."""
    state = app.extensions.get(f"fogx.{name}_worker")
    if state is None or state["pid"] != os.getpid():
        return False
    state["wake"].set()
    return True


def stop(app, timeout=30):
    """End this process's threads of `app` once the work they are doing is done (an app that
    is closed down)."""
    for name, state in app.extensions.items():
        if name.endswith("_worker") and isinstance(state, dict) and "stopped" in state:
            state["stopped"] = True
            if state["pid"] == os.getpid():
                state["wake"].set()
                state["thread"].join(timeout)


def send_soon(app):
    """The notices just committed go now: the notice thread of this process is woken, or, where
    none runs, they are sent here; one the server refuses waits for its retry."""
    if wake(app, "notices"):
        return
    from services.notices import outbox
    from storage.db import db

    try:
        outbox.send_due(db.session, app.config, limit=20)
    except Exception:  # queued notices stay queued for the next pass
        db.session.rollback()
        current_app.logger.warning("notices could not be sent now", exc_info=True)
