"""A thread in each worker process that drains the outbox, so locks never wait for an operator."""
import logging
import os
import threading
import time

log = logging.getLogger("fogx.outbox")


def start_outbox_worker(app):
    interval = app.config["OUTBOX_INTERVAL_SECONDS"]
    if interval <= 0:
        return
    state = {"pid": None}
    lock = threading.Lock()

    def loop():
        from services import outbox
        from storage.db import db

        while True:
            time.sleep(interval)
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
                    state["pid"] = os.getpid()
                    threading.Thread(target=loop, name="fogx-outbox", daemon=True).start()
