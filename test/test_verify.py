#!/usr/bin/env python3
"""Tests for --verify (checked results) in `nqueens` and `nqueens-mpi`.

Run by meson as `python3 test_verify.py PATH_TO_NQUEENS [PATH_TO_NQUEENS_MPI]`.
A sample of the chunks is counted twice, on different threads (ranks under
MPI), and compared.  The totals must not change with the check on, the
check must never fire without a fault, and a fault injected into one count
(NQ_TEST_FAULT=chunk:K, compiled only into test builds: the Meson option
test_hooks, on in debug builds) must be caught: exit status 4, a message
naming the chunk, both solvers and both counts, and a journal that keeps
the finished chunks and lets a rerun finish the exact count.  Where the
build has no fault hook (NQ_TEST_HOOKS=0 from meson), the fault tests skip.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

NQUEENS = None
NQUEENS_MPI = None
MPIEXEC = shutil.which("mpiexec")
HOOKS = os.environ.get("NQ_TEST_HOOKS") == "1"
EXIT_VERIFY = 4
RECORD = 64
HEADER = 64
CHNK = 0x4B4E4843

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
ENV.pop("NQ_TEST_FAULT", None)
_SUPP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openmpi-lsan.supp")
ENV["LSAN_OPTIONS"] = ":".join(filter(None, [ENV.get("LSAN_OPTIONS"), f"suppressions={_SUPP}"]))
ENV["ASAN_OPTIONS"] = ":".join(filter(None, [ENV.get("ASAN_OPTIONS"), "fast_unwind_on_malloc=0"]))


def nqueens(*args, fault=None, timeout=120):
    env = dict(ENV)
    if fault is not None:
        env["NQ_TEST_FAULT"] = f"chunk:{fault}"
    return subprocess.run([NQUEENS, *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def mpi(ranks, *args, fault_rank=None, fault=None, timeout=120):
    """nqueens-mpi on `ranks` ranks; with fault_rank, only that rank's
    process has NQ_TEST_FAULT (an MPMD launch), so one rank's count is off."""
    common = ["--oversubscribe", "--bind-to", "none"]
    if fault_rank is None:
        cmd = [MPIEXEC, *common, "-n", str(ranks), NQUEENS_MPI, *args]
    else:
        cmd = [MPIEXEC, *common]
        for r in range(ranks):
            if r:
                cmd.append(":")
            cmd += ["-n", "1"]
            if r == fault_rank:
                cmd += ["env", f"NQ_TEST_FAULT=chunk:{fault}"]
            cmd += [NQUEENS_MPI, *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=timeout)


def total(out):
    m = re.search(r"N=\d+: (\d+) solutions", out)
    if not m:
        raise AssertionError(f"no total in {out!r}")
    return int(m.group(1))


def checked_chunks(path):
    """Chunk indices of the journal's CHNK records flagged as checked."""
    with open(path, "rb") as f:
        data = f.read()
    flagged = set()
    for off in range(HEADER, len(data) - RECORD + 1, RECORD):
        kind, flags, chunk = struct.unpack_from("<IIQ", data, off)
        if kind == CHNK and flags & 1:
            flagged.add(chunk)
    return flagged


class Verify(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nq-verify-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_totals_unchanged(self):
        """N = 1..15: the same total with every chunk checked as without."""
        for n in range(1, 16):
            plain = nqueens(str(n), "-t", "2")
            checked = nqueens(str(n), "-t", "2", "--verify", "1")
            self.assertEqual(plain.returncode, 0, plain.stderr)
            self.assertEqual(checked.returncode, 0, f"N={n}: {checked.stderr}")
            self.assertEqual(total(checked.stdout), total(plain.stdout), f"N={n}")

    def test_no_false_alarm(self):
        """Every engine, schedule and a small fraction: exit 0, exact total."""
        want = total(nqueens("12").stdout)
        for args in (["-e", "plain"], ["-e", "mirror"], ["-e", "full"], ["-e", "mitm"],
                     ["--schedule", "tasks"], ["--schedule", "static"], ["-t", "1"],
                     ["-t", "3"]):
            for fraction in ("1", "0.01"):
                r = nqueens("12", *args, "--verify", fraction)
                self.assertEqual(r.returncode, 0, f"{args} {fraction}: {r.stderr}")
                self.assertEqual(total(r.stdout), want, f"{args} {fraction}")

    def test_bad_fraction(self):
        for bad in ("0", "-0.5", "1.5", "nan", "inf", "0x1p-2", "abc", ""):
            r = nqueens("10", "--verify", bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("verify", r.stderr)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
            self.assertEqual(r.stdout, "")

    def test_help_names_exit_status(self):
        r = nqueens("--help")
        self.assertIn("--verify F", r.stdout)
        self.assertIn(f"exit {EXIT_VERIFY}", r.stdout)


@unittest.skipUnless(HOOKS, "the build has no fault hook (configure with -Dtest_hooks=enabled)")
class Fault(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nq-verify-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_fault_is_real(self):
        """Without the check the injected fault changes the total: the
        hook is live, so the tests below can fail."""
        want = total(nqueens("12", "-t", "2").stdout)
        r = nqueens("12", "-t", "2", fault=5)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(total(r.stdout), want + 1)

    def test_fault_caught(self):
        for threads in ("1", "2"):
            r = nqueens("12", "-t", threads, "--verify", "1", fault=5)
            self.assertEqual(r.returncode, EXIT_VERIFY, r.stderr)
            self.assertEqual(r.stdout, "")
            line = r.stderr.strip()
            self.assertEqual(len(line.splitlines()), 1, r.stderr)
            self.assertIn("chunk 5 ", line)
            m = re.search(r"(\d+) by thread (\d+), (\d+) by thread (\d+)", line)
            self.assertIsNotNone(m, line)
            a, ta, b, tb = map(int, m.groups())
            self.assertEqual(abs(a - b), 1, line)
            if threads == "2":
                self.assertNotEqual(ta, tb, "the second count ran on the first's thread")

    def test_fault_caught_journal_keeps_the_rest(self):
        want = total(nqueens("12", "-t", "2").stdout)
        journal = os.path.join(self.tmp, "run.j")
        r = nqueens("12", "-t", "2", "--verify", "1", "--checkpoint", journal, fault=5)
        self.assertEqual(r.returncode, EXIT_VERIFY, r.stderr)
        flagged = checked_chunks(journal)
        self.assertNotIn(5, flagged)
        self.assertGreater(len(flagged), 200)
        # The rerun counts only the disputed chunk (twice) and finishes.
        r = nqueens("12", "-t", "2", "--verify", "1", "--checkpoint", journal)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(total(r.stdout), want)
        self.assertIn("251 resumed", r.stdout)
        self.assertIn(5, checked_chunks(journal))

    def test_resumed_unchecked_chunks_are_checked(self):
        """A journal written without the check, cut before its end: the
        resumed run counts its chunks again and compares with the journal."""
        want = total(nqueens("12", "-t", "2").stdout)
        journal = os.path.join(self.tmp, "run.j")
        self.assertEqual(nqueens("12", "-t", "2", "--checkpoint", journal).returncode, 0)
        with open(journal, "r+b") as f:  # drop the completion record
            f.truncate(os.path.getsize(journal) - RECORD)
        cut = journal + ".cut"
        shutil.copyfile(journal, cut)
        r = nqueens("12", "-t", "2", "--verify", "1", "--checkpoint", cut, fault=9)
        self.assertEqual(r.returncode, EXIT_VERIFY, r.stderr)
        self.assertRegex(r.stderr, r"chunk 9 .*by the journal")
        r = nqueens("12", "-t", "2", "--verify", "1", "--checkpoint", journal)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(total(r.stdout), want)
        self.assertEqual(len(checked_chunks(journal)), 252)


@unittest.skipUnless(MPIEXEC, "no mpiexec on PATH")
class Mpi(unittest.TestCase):
    def setUp(self):
        if not NQUEENS_MPI:
            self.skipTest("no nqueens-mpi in this build")

    def test_no_false_alarm(self):
        want = total(nqueens("12").stdout)
        for ranks, threads in ((2, "1"), (1, "2"), (1, "1")):
            r = mpi(ranks, "12", "-t", threads, "--verify", "1")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(total(r.stdout), want)

    @unittest.skipUnless(HOOKS, "the build has no fault hook")
    def test_fault_on_one_rank_caught(self):
        for fault_rank in (0, 1):
            r = mpi(2, "12", "-t", "1", "--verify", "1", fault_rank=fault_rank, fault=7)
            self.assertEqual(r.returncode, EXIT_VERIFY, r.stderr)
            m = re.search(r"chunk 7 .*?(\d+) by rank (\d), (\d+) by rank (\d)", r.stderr)
            self.assertIsNotNone(m, r.stderr)
            a, ra, b, rb = map(int, m.groups())
            self.assertEqual(abs(a - b), 1)
            self.assertEqual({ra, rb}, {0, 1})

    @unittest.skipUnless(HOOKS, "the build has no fault hook")
    def test_fault_on_one_thread_caught_alone(self):
        r = mpi(1, "12", "-t", "2", "--verify", "1", fault_rank=0, fault=7)
        self.assertEqual(r.returncode, EXIT_VERIFY, r.stderr)
        m = re.search(r"chunk 7 .*by thread (\d), \d+ by thread (\d)", r.stderr)
        self.assertIsNotNone(m, r.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_verify.py PATH_TO_NQUEENS [PATH_TO_NQUEENS_MPI]")
    NQUEENS = sys.argv.pop(1)
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        NQUEENS_MPI = sys.argv.pop(1)
    unittest.main(verbosity=2)
