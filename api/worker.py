"""A thread in each worker process that drains the outbox, so locks never wait for an operator.

It drains every `OUTBOX_INTERVAL_SECONDS`, and at once when a request has just committed
entries (`wake`): the lock of a new scan is the thread's work, not the request's, so the
worker that took the upload is free for the next request as soon as the receipt is sent.
"""
import logging
import os
import threading

log = logging.getLogger("fogx.outbox")


def start_outbox_worker(app):
    interval = app.config["OUTBOX_INTERVAL_SECONDS"]
    if interval <= 0:
        return
    state = app.extensions["fogx.outbox_worker"] = {"pid": None, "wake": None}
    lock = threading.Lock()

    def loop(wake):
        from services import outbox
        from storage.db import db

        while True:
            wake.wait(interval)
            wake.clear()
            with app.app_context():
                try:
                    outbox.drain(db.session, app.extensions["fogx.store"])
                except Exception:  # noqa: BLE001  keep the loop alive; entries stay pending
                    log.warning("outbox drain failed", exc_info=True)

    @app.before_request
    def _ensure_running():
        # Started on the first request of each process: threads do not survive a fork.
        if state["pid"] != os.getpid():
            with lock:
                if state["pid"] != os.getpid():
                    wake = threading.Event()
                    threading.Thread(target=loop, args=(wake,), name="fogx-outbox", daemon=True).start()
                    state.update(pid=os.getpid(), wake=wake)


def wake(app) -> bool:
    """Have this process's outbox thread drain now; False where none runs here."""
    state = app.extensions.get("fogx.outbox_worker")
    if state is None or state["pid"] != os.getpid():
        return False
    state["wake"].set()
    return True
