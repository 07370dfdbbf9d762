"""The benchmark's CPU account: what the API's workers, the harness itself and the rest of the
machine spend a manifest, read from /proc (the figure that explains the ingest ratio), held to
what the processes say they used rather than to how long their work should take."""

import os
import subprocess
import sys
import time

import pytest

from bench.cpu import CPU, backend_pids, cpu_by_pid, cpu_seconds, proc_stat, stolen_percent

# A process that says what CPU it has used (its own account, as the kernel keeps it) once
# started, then on "go" works 0.3 s of CPU and says it again: the events the account is held to.
CHILD = """
import os, sys, time
def used():
    times = os.times()
    return times.user + times.system
print(used(), flush=True)
sys.stdin.readline()
started = time.process_time()
while time.process_time() - started < 0.3:
    pass
print(used(), flush=True)
sys.stdin.read()
"""
# The kernel counts a process's CPU in clock ticks: two readings of one counter differ from what
# was used between them by at most a tick at each end.
TICK = 1 / os.sysconf("SC_CLK_TCK")


class Child:
    """A CHILD process, with what it said it used when it was ready and when it was done."""

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.pid = self.process.pid
        self.ready = float(self.process.stdout.readline())
        self.done = None

    def go(self):
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def wait_done(self):
        self.done = float(self.process.stdout.readline())

    @property
    def worked(self):
        """The CPU it used between "go" and saying it was done."""
        return self.done - self.ready

    def end(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def _burn(seconds):
    started = time.process_time()
    while time.process_time() - started < seconds:
        pass
    return time.process_time() - started


def test_a_process_that_works_is_counted_as_its_own_and_the_machine_as_busy():
    """The app's processes, the harness's own and the rest: a process outside the account
    (PostgreSQL, in a run) is counted in the rest, not in either of the others. Each is held to
    what the processes themselves say they used, not to how long the work should take."""
    child, outsider = Child(), Child()
    burnt = []
    try:
        account = CPU([child.pid])
        before, started = proc_stat(), time.perf_counter()

        def both():
            for process in (child, outsider):
                process.go()
            for process in (child, outsider):
                process.wait_done()

        account.measure(both, count=10)
        account.measure(lambda: burnt.append(_burn(0.2)), count=10)
        busy, elapsed = proc_stat().busy - before.busy, time.perf_counter() - started
        # The child's work is the processes' part, whatever else the machine did meanwhile.
        assert account.spent["processes"] == pytest.approx(child.worked, abs=2 * TICK)
        assert account.ms("processes") == pytest.approx(child.worked / 20 * 1000, abs=2 * TICK / 20 * 1000)
        # This process's burn is its own part, with the few lines of the harness around it.
        assert burnt[0] <= account.spent["own"] <= burnt[0] + 2 * TICK
        # The outsider's work at least (sampled by the machine's ticks); whatever else ran adds.
        assert account.spent["rest"] >= outsider.worked - 4 * TICK
        assert busy >= child.worked + outsider.worked + burnt[0] - 6 * TICK
        # The blocks' own wall time (what the paced run's answered rate is counted over): no
        # shorter than the work done one after the other in them, no longer than the test.
        assert max(child.worked, outsider.worked) + burnt[0] - 2 * TICK <= account.seconds <= elapsed
        assert cpu_seconds([child.pid]) == pytest.approx(child.done, abs=2 * TICK)
        # The hypervisor's share is of every tick of every core while the blocks ran.
        assert account.ticks == pytest.approx(account.seconds * os.cpu_count() / TICK, rel=0.25)
        assert 0 <= stolen_percent(account) <= 100
    finally:
        for process in (child, outsider):
            process.end()


def test_a_part_is_counted_apart_from_the_processes_and_the_rest_and_a_process_born_within_counts_whole():
    """The export pool's workers and the database's backends are parts of their own: what they
    spend is neither the app server's workers' nor the rest; a backend that began within the
    block counts all it used, one that ended is lost (its CPU goes to the rest)."""
    app, pool = Child(), Child()
    born = []

    def start_and_wait():
        born.append(Child())
        for process in (app, pool, born[0]):
            process.go()
        for process in (app, pool, born[0]):
            process.wait_done()

    try:
        account = CPU([app.pid], parts={"pool": lambda: [pool.pid], "backends": lambda: [p.pid for p in born]})
        before = proc_stat()
        account.measure(start_and_wait, count=10)
        busy = proc_stat().busy - before.busy
        assert account.spent["processes"] == pytest.approx(app.worked, abs=2 * TICK)
        assert account.spent["pool"] == pytest.approx(pool.worked, abs=2 * TICK)
        # Born within the block: all it used, its start-up as well as its work.
        assert account.spent["backends"] == pytest.approx(born[0].done, abs=2 * TICK)
        # Each part is taken out of the rest: the machine's work is counted once.
        assert sum(account.spent.values()) == pytest.approx(busy, abs=0.05)
        assert cpu_by_pid([pool.pid, 2**22 + 1]).keys() == {pool.pid}  # one that ended is left out
    finally:
        for process in (app, pool, *born):
            process.end()


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
