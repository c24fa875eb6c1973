"""What the Python tests read of running processes in Linux's /proc.

One copy for the tests that stop a process (SIGSTOP) and must know it has
stopped before they look at what it wrote: test_checkpoint.py (a run
holding a journal's lock) and test_mpi.py (a rank 0 holding one).
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
