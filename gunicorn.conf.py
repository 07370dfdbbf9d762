"""gunicorn's settings for fogx, read by every `gunicorn wsgi:app` started in this folder.

Workers serve with threads (`gthread`): a request's body is read before its token is checked,
so a client that sends its body slowly holds what serves it until the last byte; a thread,
then, and not a whole worker. Filings go on on the worker's other threads and workers. In
production a TLS-terminating proxy that buffers whole requests stands in front as well (README).

Each worker marks itself alive by touching a file after every request. On a disk-backed
folder (gunicorn's default, the system's temporary folder) that is an inode update in the
file system's journal, which PostgreSQL's commits on the same disk keep busy, and a touch can
wait for the journal; in memory it cannot. With the file in `/dev/shm`, eight clients filed
4 to 6% more manifests a second on this machine (bench/README.md).

Workers run under Linux's SCHED_BATCH policy: a worker woken by PostgreSQL's answer or a new
connection waits for the running process's turn to end rather than preempting it. Where the
app and PostgreSQL share the cores, a backend is then seldom interrupted in the middle of a
statement or a commit by the worker that is waiting on it; filings a second rose 3 to 10%
and the workers' CPU a filing fell 4 to 7% (bench/README.md).
"""
import os

worker_class = "gthread"
threads = 4  # per worker; `--threads` overrides

if os.path.isdir("/dev/shm"):
    worker_tmp_dir = "/dev/shm"


def post_fork(server, worker):
    # The worker's threads, made after this, inherit its policy.
    if not hasattr(os, "SCHED_BATCH"):  # not Linux
        return
    try:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except OSError as error:  # a sandbox that forbids it: the default policy serves as well
        worker.log.warning("workers keep the default scheduling: %s", error)
