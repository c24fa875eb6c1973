"""What the Python tests read of running processes in Linux's /proc.

One copy for the tests that stop, kill or signal processes and must first
know their state: whether a stopped process has stopped before they look
at what it wrote (test_checkpoint.py, test_mpi_recovery.py), which
processes an mpiexec started and which MPI rank each one is, whether a
signal handler is installed yet, and whether a process has ended (the MPI
tests and mpi_util.py).
"""
import os
import time


def wait_stopped(pid, timeout=30):
    """Waits until every thread of pid is stopped (state T): a SIGSTOP is
    delivered asynchronously, and a thread may finish a write first."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        states = []
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{task}/stat") as f:
                    states.append(f.read().rsplit(")", 1)[1].split()[0])
            except FileNotFoundError:
                continue
        if states and all(s in "tT" for s in states):
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not stop")


def descendants(root):
    """Pids of every process below root (Linux /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def is_nqueens(pid):
    """True if process pid runs one of this project's programs."""
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe")).startswith("nqueens")
    except OSError:
        return False


def ended(pid, limit):
    """True once process pid is gone or a zombie, within `limit` seconds."""
    deadline = time.time() + limit
    while time.time() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def rank_pid(root, rank):
    """Pid of the nqueens-mpi process of MPI rank `rank` under root, or None."""
    for pid in descendants(root):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if f"OMPI_COMM_WORLD_RANK={rank}".encode() in env:
            return pid
    return None


def handles(pid, sig):
    """True once process pid catches `sig` (its handler is installed)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    except OSError:
        pass
    return False
