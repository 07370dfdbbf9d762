"""The benchmark's CPU account: what the API's workers, the harness itself and the rest of the
machine spend a manifest, read from /proc (the figure that explains the ingest ratio)."""

import os
import subprocess
import sys
import time

import pytest

from bench.cpu import CPU, backend_pids, cpu_by_pid, cpu_seconds, proc_stat, stolen_percent

BURN = """
import sys, time
started = time.process_time()
while time.process_time() - started < 0.3:
    pass
print("burnt", flush=True)
sys.stdin.read()
"""


def _burn(seconds):
    started = time.process_time()
    while time.process_time() - started < seconds:
        pass


def test_a_process_that_works_is_counted_as_its_own_and_the_machine_as_busy():
    """The app's processes, the harness's own and the rest: a process outside the account
    (PostgreSQL, in a run) is counted in the rest, not in either of the others."""
    child, outsider = (
        subprocess.Popen([sys.executable, "-c", BURN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    )
    try:
        account = CPU([child.pid])
        before, started = proc_stat(), time.perf_counter()
        account.measure(lambda: (child.stdout.readline(), outsider.stdout.readline()), count=10)
        account.measure(lambda: _burn(0.2), count=10)
        busy, elapsed = proc_stat().busy - before.busy, time.perf_counter() - started
        # Per item, over 20 items: each child's 0.3 s is 15 ms, this process's 0.2 s is 10 ms.
        assert account.ms("processes") == pytest.approx(15, abs=3)
        assert account.ms("own") == pytest.approx(10, abs=3)
        # The outsider's 15 ms at least; whatever else the machine ran can only add to it.
        assert account.ms("rest") >= 12
        assert busy >= 0.75
        # The blocks' own wall time (what the paced run's answered rate is counted over).
        assert 0.45 <= account.seconds <= elapsed
        assert cpu_seconds([child.pid]) == pytest.approx(0.3, abs=0.06)
        # The hypervisor's share is of every tick of every core while the blocks ran.
        assert account.ticks == pytest.approx(elapsed * os.cpu_count() * os.sysconf("SC_CLK_TCK"), rel=0.25)
        assert 0 <= stolen_percent(account) <= 100
    finally:
        for process in (child, outsider):
            process.stdin.close()
            process.wait(timeout=10)


def test_a_part_is_counted_apart_from_the_processes_and_the_rest_and_a_process_born_within_counts_whole():
    """The export pool's workers and the database's backends are parts of their own: what they
    spend is neither the app server's workers' nor the rest; a backend that began within the
    block counts all it used, one that ended is lost (its CPU goes to the rest)."""
    app, pool = (
        subprocess.Popen([sys.executable, "-c", BURN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    )
    born = []

    def start_and_wait():
        born.append(
            subprocess.Popen([sys.executable, "-c", BURN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        )
        for process in (app, pool, born[0]):
            process.stdout.readline()

    try:
        account = CPU([app.pid], parts={"pool": lambda: [pool.pid], "backends": lambda: [p.pid for p in born]})
        before = proc_stat()
        account.measure(start_and_wait, count=10)
        busy = proc_stat().busy - before.busy
        # Per item, over 10 items: each child's 0.3 s is 30 ms.
        assert account.ms("processes") == pytest.approx(30, abs=6)
        assert account.ms("pool") == pytest.approx(30, abs=6)
        assert account.ms("backends") >= 24  # its start-up as well as its 0.3 s
        # Each part is taken out of the rest: the machine's work is counted once.
        assert sum(account.spent.values()) == pytest.approx(busy, abs=0.05)
        assert cpu_by_pid([pool.pid, 2**22 + 1]).keys() == {pool.pid}  # one that ended is left out
    finally:
        for process in (app, pool, *born):
            process.stdin.close()
            process.wait(timeout=10)


def test_a_databases_backends_are_found_by_their_process_title():
    title = subprocess.Popen(
        ["bash", "-c", 'exec -a "postgres: 15/main: postgres fogx_bench 127.0.0.1(5) idle" sleep 30']
    )
    other = subprocess.Popen(
        ["bash", "-c", 'exec -a "postgres: 15/main: postgres fogx_bench_at_100000 127.0.0.1(6) idle" sleep 30']
    )
    try:
        deadline = time.monotonic() + 10
        while title.pid not in backend_pids("fogx_bench") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert title.pid in backend_pids("fogx_bench")
        assert other.pid not in backend_pids("fogx_bench") and other.pid in backend_pids("fogx_bench_at_100000")
    finally:
        for process in (title, other):
            process.kill()
            process.wait(timeout=10)
