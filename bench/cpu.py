"""Where the machine's CPU and memory went while the bench ran, read from /proc."""

import gc
import os
import time
from collections import namedtuple
from pathlib import Path


def peak_rss_mb(pids):
    """The largest high-water mark of resident memory among the workers (VmHWM)."""
    peaks = []
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]) / 1024)
    return max(peaks)


def cpu_seconds(pids):
    """The user and system CPU time processes `pids` have used, in seconds."""
    return sum(cpu_by_pid(pids, strict=True).values())


def cpu_by_pid(pids, strict=False):
    """{pid: the user and system CPU seconds it has used} of processes `pids`; unless `strict`,
    a process that has ended meanwhile is left out (a database backend comes and goes)."""
    used = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            if strict:
                raise
            continue
        used[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return used


def backend_pids(database):
    """The PostgreSQL server processes serving connections to `database` (named in their
    process title, "postgres: ... user database host(port) state"), on this machine."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if title.startswith("postgres: ") and f" {database} " in title:
            found.append(int(entry.name))
    return found


ProcStat = namedtuple("ProcStat", "busy stolen ticks")


def proc_stat():
    """The whole machine's account from /proc/stat, over all cores: seconds spent working
    (user, system, interrupts; not idle, not waiting on the disk, not stolen by the
    hypervisor), and the ticks the hypervisor took of all ticks."""
    user, nice, system, idle, iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    busy = user + nice + system + irq + softirq
    return ProcStat(busy / os.sysconf("SC_CLK_TCK"), steal, busy + idle + iowait + steal)


class CPU:
    """Where the machine's CPU went while blocks ran: processes `pids`' own, each of `parts`'
    ({name: a callable giving the processes' pids}, asked before and after each block: the
    export pool's workers, the database's backends), this process's (the load generator, or
    the plain loop), and the rest (PostgreSQL where it is not a part, the kernel's share of the
    network, anything else running), each in ms an item; and the share of the cores' time the
    hypervisor took (a virtual machine's cores are not all its own: a slow spell with much
    taken is the host's, not the app's)."""

    def __init__(self, pids=(), parts=None):
        self.pids = pids
        self.parts = parts or {}
        self.spent = {"processes": 0.0, "own": 0.0, "rest": 0.0, **{name: 0.0 for name in self.parts}}
        self.count = 0
        self.seconds = 0.0  # wall time the blocks took
        self.stolen = self.ticks = 0

    def measure(self, block, count):
        """`block()`'s result; what it used is added to the account, for `count` items."""
        parts = {name: cpu_by_pid(pids()) for name, pids in self.parts.items()}
        before = (cpu_seconds(self.pids), time.process_time(), proc_stat())
        started = time.perf_counter()
        result = block()
        self.seconds += time.perf_counter() - started
        after = proc_stat()
        processes, own = cpu_seconds(self.pids) - before[0], time.process_time() - before[1]
        for name, pids in self.parts.items():
            # A process that began during the block counts from nothing; one that ended is lost.
            now = cpu_by_pid(pids())
            parts[name] = sum(used - parts[name].get(pid, 0.0) for pid, used in now.items())
            self.spent[name] += parts[name]
        self.spent["processes"] += processes
        self.spent["own"] += own
        self.spent["rest"] += max(0.0, after.busy - before[2].busy - processes - own - sum(parts.values()))
        self.stolen += after.stolen - before[2].stolen
        self.ticks += after.ticks - before[2].ticks
        self.count += count
        return result

    def ms(self, part):
        return self.spent[part] / self.count * 1000


def stolen_percent(*accounts):
    """The share of the cores' time the hypervisor took over the accounts' blocks, in %."""
    ticks = sum(account.ticks for account in accounts)
    return 100 * sum(account.stolen for account in accounts) / ticks if ticks else 0.0


class Collections:
    """The longest pause of this process's garbage collector while in the block, in ms: the
    load generator's own stalls, which a paced run would count as the server's latency."""

    def __init__(self):
        self.longest = 0.0
        self._started = None

    def _note(self, phase, _info):
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            self.longest = max(self.longest, (time.perf_counter() - self._started) * 1000)

    def __enter__(self):
        gc.callbacks.append(self._note)
        return self

    def __exit__(self, *_):
        gc.callbacks.remove(self._note)
