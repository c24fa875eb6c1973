"""What the `nqueens-mpi` tests share: how they start the programs.

test_mpi.py (start-up, options, output, transport) and test_mpi_recovery.py
(ranks killed, stopped or signalled; journals resumed) launch nqueens-mpi
under mpiexec with one environment, wait for a job with one limit and read
its journal with nqueens the same way; one copy of each here.  main() takes
the programs' paths from the command line, as meson passes them, and exits
77, which meson reports as SKIP, when no `mpiexec` is on PATH.  Every
mpiexec gets --oversubscribe and --bind-to none: the suites run up to 3
ranks x 2 threads on small machines, and Open MPI's default binding would
pin each rank to one core.
"""
import os
import shutil
import signal
import subprocess
import sys
import unittest

from proc_util import descendants

# Set by main(); read as mpi_util.NQUEENS_MPI and mpi_util.NQUEENS.
NQUEENS_MPI = None
NQUEENS = None
MPIEXEC = shutil.which("mpiexec")
# Whether the build has the test-only faults (NQ_TEST_FAULT), as meson says.
HOOKS = os.environ.get("NQ_TEST_HOOKS") == "1"

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
# Under ASan (CI), Open MPI's own never-freed allocations must not fail the
# run: suppress leaks in its libraries only.  Unwinding slowly gives
# LeakSanitizer whole stacks, so that a leak allocated in a plugin that
# MPI_Finalize unloads (its frames "<unknown module>") is still matched by
# the frames of Open MPI's libraries below it.
_SUPP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openmpi-lsan.supp")
ENV["LSAN_OPTIONS"] = ":".join(filter(None, [ENV.get("LSAN_OPTIONS"), f"suppressions={_SUPP}"]))
ENV["ASAN_OPTIONS"] = ":".join(filter(None, [ENV.get("ASAN_OPTIONS"), "fast_unwind_on_malloc=0"]))
# LeakSanitizer's exit check takes about a second a rank (it matches some
# 3,000 of Open MPI's objects against the suppressions, unwinding slowly):
# jobs that repeat a path another job has leak-checked may go without it.
UNCHECKED_ENV = dict(ENV, ASAN_OPTIONS=ENV["ASAN_OPTIONS"] + ":detect_leaks=0")


def mpi_cmd(ranks, *args):
    """The command line that runs nqueens-mpi ARGS on `ranks` ranks."""
    return [MPIEXEC, "-n", str(ranks), "--oversubscribe", "--bind-to", "none",
            NQUEENS_MPI, *args]


def run(ranks, *args, timeout=60, leaks=True):
    """Runs nqueens-mpi ARGS on `ranks` ranks to its end; the CompletedProcess.
    leaks=False: without LeakSanitizer's check at exit (ASan builds)."""
    return subprocess.run(mpi_cmd(ranks, *args), capture_output=True, text=True,
                          timeout=timeout, env=ENV if leaks else UNCHECKED_ENV)


def finish(test, proc, limit):
    """Waits up to `limit` seconds for the launched job `proc` to end and
    returns its (stdout, stderr); past the limit, kills every process it
    started and fails `test`: the job hangs."""
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        for pid in descendants(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        proc.kill()
        proc.communicate()
        test.fail(f"mpiexec still running {limit} s later: the job hangs")
    return out, err


def journal_total(journal, args):
    """`nqueens --checkpoint journal -q ARGS` on a journal: (status, stdout, stderr)."""
    p = subprocess.run([NQUEENS, *args, "--checkpoint", journal, "-q"], capture_output=True,
                       text=True, timeout=300, env=ENV)
    return p.returncode, p.stdout, p.stderr


def main(script):
    """Runs the calling script's tests: `python3 SCRIPT PATH_TO_NQUEENS_MPI
    PATH_TO_NQUEENS [unittest arguments]`."""
    global NQUEENS_MPI, NQUEENS
    if len(sys.argv) < 3:
        sys.exit(f"usage: {script} PATH_TO_NQUEENS_MPI PATH_TO_NQUEENS")
    NQUEENS_MPI = sys.argv.pop(1)
    NQUEENS = sys.argv.pop(1)
    if MPIEXEC is None:
        print("SKIP: no mpiexec on PATH (install openmpi-bin)", file=sys.stderr)
        sys.exit(77)
    unittest.main(module="__main__", verbosity=2)
