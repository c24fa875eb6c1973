#!/usr/bin/env python3
"""Tests for `nqueens-mpi`, the hybrid MPI + OpenMP counter.

Run by meson as `python3 test_mpi.py PATH_TO_NQUEENS_MPI PATH_TO_NQUEENS` (declared only when
MPI was found at configure time).  Exits 77, which meson reports as SKIP,
when no `mpiexec` is on PATH.  Every mpiexec gets --oversubscribe and
--bind-to none: the suite runs up to 3 ranks x 2 threads on small machines,
and Open MPI's default binding would pin each rank to one core.
"""
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from proc_util import wait_stopped

NQUEENS_MPI = None
NQUEENS = None
MPIEXEC = shutil.which("mpiexec")

KNOWN = {8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200, 13: 73712, 14: 365596}

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
# Under ASan (CI), Open MPI's own never-freed allocations must not fail the
# run: suppress leaks in its libraries only.  Keeping its plugins loaded and
# unwinding slowly lets LeakSanitizer see which library a leak came from.
_SUPP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "openmpi-lsan.supp")
ENV["LSAN_OPTIONS"] = ":".join(filter(None, [ENV.get("LSAN_OPTIONS"), f"suppressions={_SUPP}"]))
ENV["ASAN_OPTIONS"] = ":".join(filter(None, [ENV.get("ASAN_OPTIONS"), "fast_unwind_on_malloc=0"]))
ENV["OMPI_MCA_mca_base_component_disable_dlclose"] = "1"


def mpi_cmd(ranks, *args):
    return [MPIEXEC, "-n", str(ranks), "--oversubscribe", "--bind-to", "none",
            NQUEENS_MPI, *args]


def run(ranks, *args, timeout=60):
    return subprocess.run(mpi_cmd(ranks, *args), capture_output=True, text=True,
                          timeout=timeout, env=ENV)


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


def trace_lines(stderr):
    """{rank: [(what, wall, cpu)]} from the NQ_MPI_TRACE lines of stderr, in
    the order each rank wrote them (rank -1: before MPI_Init)."""
    prefix = "nqueens-mpi: trace: rank "
    ranks = {}
    for line in stderr.splitlines():
        if not line.startswith(prefix):
            continue
        rank, rest = line[len(prefix):].split(": ", 1)
        fields, what = rest.split(": ", 1)
        words = fields.split()
        if words[0::2] != ["wall", "cpu", "thread"]:
            raise ValueError(f"bad trace line: {line}")
        ranks.setdefault(int(rank), []).append((what, float(words[1]), float(words[3])))
    return ranks


class Trace(unittest.TestCase):
    """NQ_MPI_TRACE: every rank's phases, and what they show of the
    protocol (structure only: no timing is asserted)."""

    PHASES = ["MPI_Init done", "options read", "planned", "plan broadcast",
              "same job on every rank"]
    END = ["closing barrier met", "MPI_Finalize done"]

    def test_phases_and_batches(self):
        env = dict(ENV, NQ_MPI_TRACE="1")
        p = subprocess.run(mpi_cmd(2, "16", "-t", "1", "-q"), capture_output=True, text=True,
                           timeout=120, env=env)
        self.assertEqual((p.returncode, p.stdout), (0, "14772512\n"), p.stderr)
        ranks = trace_lines(p.stderr)
        self.assertEqual(sorted(ranks), [-1, 0, 1], p.stderr)
        self.assertEqual([w.split(" (")[0] for w, _, _ in ranks[-1]], ["process started"] * 2)
        for r in (0, 1):
            what = [w.split(" (")[0] for w, _, _ in ranks[r]]
            with self.subTest(rank=r):
                # Each phase once, in order, and the wall clock never goes back.
                self.assertEqual(what[:len(self.PHASES)], self.PHASES, what)
                self.assertEqual(what[-len(self.END):], self.END, what)
                for phase in ("first chunk taken", "compute threads done"):
                    self.assertEqual(what.count(phase), 1, what)
                walls = [wall for _, wall, _ in ranks[r]]
                self.assertEqual(walls, sorted(walls))
                # Every rank planned the job once, beside rank 0.
                self.assertNotIn("planning again, as rank 0 did", what)
        zero = [w for w, _, _ in ranks[0]]
        # Rank 0's estimate is timed before its own threads take a chunk.
        self.assertLess(zero.index("estimate done"), zero.index("first chunk taken"))
        served = [w for w in zero if w.startswith("served ")]
        sent = [w for w, _, _ in ranks[1] if w.startswith("sent ")]
        self.assertEqual((len(served), len(sent)), (1, 1), p.stderr)
        # "sent R requests, M result messages (C chunks), B heartbeats in P polls"
        words = sent[0].replace(",", "").replace("(", "").split()
        requests, messages, chunks = int(words[1]), int(words[3]), int(words[6])
        got = served[0].replace(",", "").split()
        # Rank 0 served every REQUEST and RESULT rank 1 sent...
        self.assertEqual((int(got[1]), int(got[3])), (requests, messages), p.stderr)
        # ...which carried the counts in batches, not a message per chunk.
        self.assertGreater(chunks, 0)
        self.assertLessEqual(2 * messages, chunks, sent[0])
        self.assertLessEqual(2 * requests, chunks, sent[0])

    def test_silent_without_the_variable(self):
        env = dict(ENV)
        env.pop("NQ_MPI_TRACE", None)
        p = subprocess.run(mpi_cmd(2, "12", "-t", "1", "-q"), capture_output=True, text=True,
                           timeout=60, env=env)
        self.assertEqual((p.returncode, p.stdout), (0, "14200\n"), p.stderr)
        self.assertNotIn("trace:", p.stderr)


class Transport(unittest.TestCase):
    """On one node, with no messaging layer chosen, every rank asks Open MPI
    for shared memory (pml ob1) before MPI_Init; a choice made in the
    environment or in an MCA parameter file is kept.  The trace's MPI_Init
    line says which, and the count is exact either way."""

    CHOSEN = "one node: pml ob1"

    def init_lines(self, env):
        p = subprocess.run(mpi_cmd(2, "10", "-t", "1", "-q"), capture_output=True, text=True,
                           timeout=60, env=env)
        self.assertEqual((p.returncode, p.stdout), (0, "724\n"), p.stderr)
        ranks = trace_lines(p.stderr)
        lines = [w for r in (0, 1) for w, _, _ in ranks.get(r, [])
                 if w.startswith("MPI_Init done")]
        self.assertEqual(len(lines), 2, p.stderr)
        return lines

    def env_with_file(self, folder, text):
        conf = os.path.join(folder, "mca-params.conf")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(text)
        env = dict(ENV, NQ_MPI_TRACE="1", OMPI_MCA_mca_base_param_files=conf)
        env.pop("OMPI_MCA_pml", None)
        return env

    def test_shared_memory_when_nothing_chosen(self):
        with tempfile.TemporaryDirectory() as d:
            # Exclusions (Debian's file has these) choose nothing.
            env = self.env_with_file(d, "# site\npml = ^ucx\n  pml_ob1_priority = 20\n")
            for line in self.init_lines(env):
                self.assertIn(self.CHOSEN, line)
                # Open MPI 4's mpiexec serves PMIx over loopback TCP.
                if "PMIX_SERVER_URI" not in os.environ:
                    self.assertIn("launcher channel without delay", line)

    def test_a_choice_is_kept(self):
        with tempfile.TemporaryDirectory() as d:
            for how, text, pml in (("file", "mtl = ^ofi\n pml =ob1\n", None),
                                   ("environment", "", "ob1")):
                with self.subTest(how=how):
                    env = self.env_with_file(d, text)
                    if pml:
                        env["OMPI_MCA_pml"] = pml
                    for line in self.init_lines(env):
                        self.assertNotIn(self.CHOSEN, line)


class OverheadScript(unittest.TestCase):
    """bench/mpi_overhead.sh, the measurement of nqueens-mpi against nqueens,
    at a board small enough for the test suite (its figures mean nothing
    here; that it runs and prints its tables does)."""

    SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench",
                          "mpi_overhead.sh")

    def build_dir(self):
        # NQUEENS_MPI is BUILD/src/mpi/nqueens-mpi
        return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(NQUEENS_MPI))))

    @unittest.skipUnless(os.environ.get("NQ_MPI_SLOW") == "1",
                         "slow suite only (about 30 launches)")
    def test_tables_and_phases(self):
        p = subprocess.run(["sh", self.SCRIPT, "-r", "3", "-p", self.build_dir(), "9"],
                           capture_output=True, text=True, timeout=300, env=ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        header = "| count | `nqueens -t 2` | `nqueens-mpi`, 1 rank × 2 threads | 2 ranks × 1 thread |"
        self.assertEqual(out.count(header), 2, out)
        rows = [l for l in out.splitlines() if l.startswith("| N=9 | ")]
        self.assertEqual(len(rows), 2, out)
        for c in range(3):
            self.assertEqual(out.count(f"round {c + 1}: "), 3, out)
        self.assertIn("mpiexec -n 1 true", out)
        self.assertIn("N=9 phases of nqueens-mpi 2 ranks x 1 thread", out)
        self.assertRegex(out, r"rank  1 +[0-9.]+ s  cpu +[0-9.]+  thread +[0-9.]+  MPI_Init done")

    def test_bad_arguments(self):
        for args in (["-r", "2", self.build_dir(), "9"], ["-t", "0", self.build_dir(), "9"],
                     [self.build_dir()], ["/nonexistent", "9"], [self.build_dir(), "x"]):
            with self.subTest(args=args):
                p = subprocess.run(["sh", self.SCRIPT, *args], capture_output=True, text=True,
                                   timeout=60, env=ENV)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertTrue(p.stderr.strip())


class Totals(unittest.TestCase):
    def test_known_totals_every_combination(self):
        # Every combination counts N=8, 11 and 14; two of them the whole
        # table.  (About 26 launches: mpiexec start-up dominates the time.)
        seen = {}
        for ranks in (1, 2, 3):
            for threads in (1, 2):
                full = (ranks, threads) in ((2, 2), (3, 1))
                for n, total in KNOWN.items():
                    if not full and n not in (8, 11, 14):
                        continue
                    with self.subTest(ranks=ranks, threads=threads, n=n):
                        p = run(ranks, str(n), "-t", str(threads), "--json")
                        self.assertEqual(p.returncode, 0, p.stderr)
                        doc = json.loads(p.stdout)
                        self.assertEqual(doc["total"], total)
                        self.assertEqual(doc["ranks"], ranks)
                        self.assertEqual(doc["threads"], ranks * threads)
                        seen.setdefault(n, set()).add(doc["total"])
        for n, totals in seen.items():
            self.assertEqual(totals, {KNOWN[n]}, f"N={n}")

    def test_engines_and_split(self):
        for engine, extra in (("plain", ()), ("mirror", ("--split-depth", "3")),
                              ("full", ("--split-depth", "1")), ("mitm", ())):
            p = run(2, "13", "-e", engine, *extra, "-q", "-t", "1")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout, "73712\n")
        # What the engine cannot honour is refused, as by nqueens.
        p = run(2, "13", "-e", "mitm", "--split-depth", "3")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("does not apply to engine mitm", p.stderr)

    def test_schedules(self):
        # Every schedule on 2 ranks x 2 threads with mitm (per-thread
        # scratch); the task schedule also on 1 rank x 3 threads
        # (oversubscribed) with mirror.  A bad name is refused once.
        cases = [(schedule, 2, 2, "mitm") for schedule in ("tasks", "dynamic", "guided", "static")]
        cases.append(("tasks", 1, 3, "mirror"))
        for schedule, ranks, threads, engine in cases:
            with self.subTest(schedule=schedule, ranks=ranks, threads=threads, engine=engine):
                p = run(ranks, "13", "-e", engine, "-t", str(threads), "--schedule", schedule,
                        "-q")
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(p.stdout, "73712\n")
        p = run(2, "13", "--schedule", "fastest")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("unknown schedule 'fastest'", p.stderr)
        self.assertEqual(p.stderr.count("unknown schedule"), 1)

    def test_singleton_without_mpiexec(self):
        p = subprocess.run([NQUEENS_MPI, "12", "-t", "2"], capture_output=True, text=True,
                           timeout=60, env=ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("14200 solutions", p.stdout)
        self.assertIn("on 1 rank", p.stdout)


class Interface(unittest.TestCase):
    def test_bad_input_reported_once(self):
        p = run(2, "33")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, "")
        lines = [l for l in p.stderr.splitlines() if "nqueens-mpi:" in l]
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("N=33", lines[0])
        # So is a count that would not fit in memory (rank 0 checks its node).
        p = subprocess.run(mpi_cmd(2, "16", "-e", "mitm", "-t", "2"), capture_output=True,
                           text=True, timeout=60, env=dict(ENV, NQ_MEMORY_AVAILABLE="1"))
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        lines = [l for l in p.stderr.splitlines() if "nqueens-mpi:" in l]
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn("engine mitm needs about", lines[0])
        # A bad OMP_NUM_THREADS, read on every rank, is reported once too.
        p = subprocess.run(mpi_cmd(2, "10"), capture_output=True, text=True, timeout=60,
                           env=dict(ENV, OMP_NUM_THREADS="4294967296"))
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        lines = [l for l in p.stderr.splitlines() if "nqueens-mpi:" in l]
        self.assertEqual(lines, ["nqueens-mpi: OMP_NUM_THREADS='4294967296' is not a thread "
                                 "count: expected one integer from 1 to 4096 (try --help)"],
                         p.stderr)

    def test_help_and_version_once(self):
        p = run(2, "--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count("Usage: nqueens-mpi"), 1)
        self.assertEqual(p.stdout.count("--rank-timeout S"), 1)
        p = run(2, "--version")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"^nqueens-mpi \d+\.\d+\.\d+( \(git [0-9a-f]+(-dirty)?\))?\n$")

    def test_lost_output_fails(self):
        # Without mpiexec rank 0's stdout is the caller's: a result that
        # cannot be written fails (under mpiexec, stdout is mpiexec's).
        with open("/dev/full", "w") as full:
            p = subprocess.run([NQUEENS_MPI, "10"], stdout=full, stderr=subprocess.PIPE,
                               text=True, timeout=60, env=ENV)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("nqueens-mpi: cannot write to standard output: No space left on device",
                      p.stderr)

    def test_result_kept_when_stdout_is_lost(self):
        # Under mpiexec rank 0's stdout is a pipe to mpiexec, whose own write
        # fails unseen with stdout on /dev/full.  --output writes the result
        # itself, and a finished journal keeps the total for nqueens to print.
        with tempfile.TemporaryDirectory(prefix="nq_mpi_") as tmp:
            result, journal = os.path.join(tmp, "result.json"), os.path.join(tmp, "j")
            with open("/dev/full", "w") as full:
                p = subprocess.run(mpi_cmd(2, "12", "-t", "1", "--json", "--output", result,
                                           "--checkpoint", journal),
                                   stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
                                   env=ENV)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(result) as f:
                doc = json.load(f)
            self.assertEqual((doc["total"], doc["ranks"]), (14200, 2))
            self.assertEqual(journal_total(journal, ("12",))[:2], (0, "14200\n"))
            self.assertEqual(sorted(os.listdir(tmp)), ["j", "result.json"])

    def test_output_that_cannot_be_written_fails(self):
        # Exit 1 and one line from rank 0, whether the file cannot even be
        # created (found before the count) or its write fails at the end.
        with tempfile.TemporaryDirectory(prefix="nq_mpi_") as tmp:
            for path, reason in ((os.path.join(tmp, "no", "such"), "No such file or directory"),
                                 ("/dev/full", "No space left on device")):
                with self.subTest(path=path):
                    p = run(2, "11", "-t", "1", "--output", path)
                    self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
                    lines = [l for l in p.stderr.splitlines() if l.startswith("nqueens-mpi:")]
                    self.assertEqual(lines, [f"nqueens-mpi: cannot write the result to '{path}': "
                                             f"{reason}"], p.stderr)

    def test_solutions_listed_by_rank0(self):
        p = run(2, "8", "--solutions", "--format", "columns")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), 92)

    def test_rank_timeout_option(self):
        # Checked like every option (one line, exit 2), without mpiexec.
        def alone(prog, *args):
            return subprocess.run([prog, *args], capture_output=True, text=True, timeout=60,
                                  env=ENV)
        for value in ("0", "1.5", "86401"):
            with self.subTest(value=value):
                p = alone(NQUEENS_MPI, "10", "--rank-timeout", value)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertIn(f"invalid rank timeout '{value}': expected whole seconds from 1 "
                              "to 86400", p.stderr)
        p = alone(NQUEENS_MPI, "8", "--solutions", "--rank-timeout", "5")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--rank-timeout applies only to counting", p.stderr)
        p = alone(NQUEENS, "8", "--rank-timeout", "5")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--rank-timeout applies only to nqueens-mpi", p.stderr)
        self.assertNotIn("--rank-timeout", alone(NQUEENS, "--help").stdout)


class Failures(unittest.TestCase):
    # N=17 runs for tens of seconds on a small machine: long enough to hit.
    LONG = ("17", "-t", "1", "-e", "mirror")

    def start_long(self, ranks):
        proc = subprocess.Popen(mpi_cmd(ranks, *self.LONG), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=ENV)
        deadline = time.time() + 20
        while time.time() < deadline and rank_pid(proc.pid, ranks - 1) is None:
            time.sleep(0.1)
        time.sleep(0.5)  # let the ranks plan and start counting
        return proc

    def finish(self, proc, limit):
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
            self.fail(f"mpiexec still running {limit} s later: the job hangs")
        return out, err

    def test_killed_rank_fails_the_job(self):
        for victim in (1, 0):
            with self.subTest(victim=victim):
                proc = self.start_long(2)
                pid = rank_pid(proc.pid, victim)
                self.assertIsNotNone(pid, "rank process not found")
                os.kill(pid, signal.SIGKILL)
                out, err = self.finish(proc, 30)
                self.assertNotEqual(proc.returncode, 0, err)
                self.assertNotIn("95815104", out)

    def test_sigterm_cancels_promptly(self):
        proc = self.start_long(2)
        proc.send_signal(signal.SIGTERM)
        out, err = self.finish(proc, 30)
        self.assertNotEqual(proc.returncode, 0, err)
        self.assertNotIn("95815104", out)


class Stalls(unittest.TestCase):
    """Ranks stopped with SIGSTOP, as a hung node or a network partition
    leaves them, must not hold the job: after --rank-timeout seconds of
    silence rank 0 gives the chunks each held to the live ranks.  Split
    depth 1 makes chunks of about a second, longer than the 1 s timeout, so
    only their heartbeats keep busy ranks from being taken for stalled."""
    ARGS = ("17", "-e", "mirror", "--split-depth", "1", "-t", "1")
    TOTAL = 95815104

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="nq_mpi_")
        self.journal = os.path.join(self.tmp.name, "run.journal")
        self.errors = os.path.join(self.tmp.name, "stderr")

    def tearDown(self):
        self.tmp.cleanup()

    def stderr(self):
        with open(self.errors) as f:
            return f.read()

    def test_stopped_ranks(self):
        # Ranks 1 and 2 are stopped once chunks are being counted (the
        # journal holds a record).  Rank 2 is continued as soon as rank 0
        # gave its chunks away: it rejoins, and its late results for chunks
        # counted meanwhile count once.  Rank 1 never comes back: the live
        # ranks count its chunks, rank 0 prints the exact total and ends the
        # job, which rank 1 can never leave cleanly, with exit status 3.
        with open(self.errors, "w") as err:
            proc = subprocess.Popen(
                mpi_cmd(3, *self.ARGS, "--rank-timeout", "1", "--checkpoint", self.journal),
                stdout=subprocess.PIPE, stderr=err, text=True, env=ENV)
        deadline = time.time() + 30
        while time.time() < deadline and not (os.path.exists(self.journal)
                                               and os.path.getsize(self.journal) > 64):
            time.sleep(0.02)
        stopped = [rank_pid(proc.pid, 1), rank_pid(proc.pid, 2)]
        self.assertNotIn(None, stopped, "ranks 1 and 2 not found")
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        while time.time() < deadline + 30 and "rank 2 has not been heard" not in self.stderr():
            time.sleep(0.02)
        os.kill(stopped[1], signal.SIGCONT)
        out, _ = Failures.finish(self, proc, 120)
        err = self.stderr()
        self.assertEqual(proc.returncode, 3, err)
        self.assertIn(f"N=17: {self.TOTAL} solutions", out)
        self.assertIn("rank 1 has not been heard from for", err)
        self.assertIn("rank 2 answered again after", err)
        self.assertEqual(err.count("has not been heard from"), 2, err)
        self.assertIn("the count is complete and exact, but rank 1 has been silent", err)
        self.assertTrue(ended(stopped[0], 10), "the stopped rank outlived the job")
        # The journal holds every chunk and the end: nqueens answers from it.
        p = subprocess.run([NQUEENS, *self.ARGS, "--checkpoint", self.journal, "--json"],
                           capture_output=True, text=True, timeout=60, env=ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["total"], self.TOTAL)
        self.assertEqual(doc["units_resumed"], doc["subproblems"])

    # Preloaded into the ranks: rank NQ_STOP_RANK stops itself on its way
    # into MPI_Finalize, after it said goodbye to rank 0.
    STOP_AT_FINALIZE = r"""
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
int MPI_Finalize(void)
{
    const char *stop = getenv("NQ_STOP_RANK"), *me = getenv("OMPI_COMM_WORLD_RANK");
    if (stop && me && !strcmp(stop, me))
        raise(SIGSTOP);
    return PMPI_Finalize();
}
"""

    def test_rank_stopped_at_the_end(self):
        # The count is complete and printed, the journal closed, when rank 1
        # stops: rank 0, waiting for it in MPI_Finalize, ends the job once
        # the rank timeout has passed, with exit status 3.
        mpicc = shutil.which("mpicc")
        if mpicc is None:
            self.skipTest("no mpicc to build the stopping shim")
        source = os.path.join(self.tmp.name, "stop.c")
        shim = os.path.join(self.tmp.name, "stop.so")
        with open(source, "w") as f:
            f.write(self.STOP_AT_FINALIZE)
        subprocess.run([mpicc, "-shared", "-fPIC", "-o", shim, source], check=True, env=ENV)
        # Under ASan the shim may not precede the sanitizer's runtime.
        env = dict(ENV, NQ_STOP_RANK="1",
                   ASAN_OPTIONS=ENV["ASAN_OPTIONS"] + ":verify_asan_link_order=0")
        cmd = mpi_cmd(2, "12", "-t", "1", "--rank-timeout", "1", "--checkpoint", self.journal)
        cmd[1:1] = ["-x", f"LD_PRELOAD={shim}"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)
        out, err = Failures.finish(self, proc, 60)
        self.assertEqual(proc.returncode, 3, err)
        self.assertIn("N=12: 14200 solutions", out)
        self.assertIn("the count is complete and exact, but a rank has not reached the end of "
                      "the job within 1 s", err)
        p = subprocess.run([NQUEENS, "12", "--checkpoint", self.journal, "-q"],
                           capture_output=True, text=True, timeout=60, env=ENV)
        self.assertEqual((p.returncode, p.stdout), (0, "14200\n"), p.stderr)


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


def journal_total(journal, args):
    """`nqueens --checkpoint journal -q ARGS` on a journal: (status, stdout, stderr)."""
    p = subprocess.run([NQUEENS, *args, "--checkpoint", journal, "-q"], capture_output=True,
                       text=True, timeout=300, env=ENV)
    return p.returncode, p.stdout, p.stderr


class Signals(unittest.TestCase):
    """A rank other than 0 stopped by SIGTERM or SIGINT (a scheduler draining
    its node) is a rank left behind: its chunks go to the others, the job
    completes with the exact total, says so and exits with status 3."""
    TOTALS = {"16": 14772512, "17": 95815104}

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="nq_mpi_")
        self.journal = os.path.join(self.tmp.name, "run.journal")

    def tearDown(self):
        self.tmp.cleanup()

    def signal_worker(self, n, split, sig, victim, checkpoint):
        args = [n, "-e", "mirror", "--split-depth", split, "-t", "1", "--rank-timeout", "5"]
        if checkpoint:
            args += ["--checkpoint", self.journal]
        proc = subprocess.Popen(mpi_cmd(3, *args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=ENV)
        deadline = time.time() + 30
        pid = None
        while time.time() < deadline:
            pid = pid or rank_pid(proc.pid, victim)
            counting = not checkpoint or (os.path.exists(self.journal) and
                                          os.path.getsize(self.journal) > 64)
            if pid and handles(pid, sig) and counting:
                break
            time.sleep(0.01)
        self.assertIsNotNone(pid, f"rank {victim} not found")
        os.kill(pid, sig)
        out, err = Failures.finish(self, proc, 90)
        return proc.returncode, out, err

    def test_worker_signal_leaves_the_count(self):
        name = {signal.SIGTERM: "SIGTERM", signal.SIGINT: "SIGINT"}
        # N=17 at split depth 1: 9 chunks of a second or more, so a rank
        # counting one holds its spare too, which goes to the others.
        for n, split, sig, victim, checkpoint in (("17", "1", signal.SIGTERM, 1, True),
                                                  ("16", "4", signal.SIGINT, 2, False)):
            with self.subTest(sig=name[sig], checkpoint=checkpoint):
                status, out, err = self.signal_worker(n, split, sig, victim, checkpoint)
                self.assertEqual(status, 3, err)
                self.assertIn(f"N={n}: {self.TOTALS[n]} solutions", out)
                self.assertIn(f"nqueens-mpi: rank {victim} stopped on {name[sig]} and left the "
                              "job: ", err)
                self.assertIn(f"nqueens-mpi: the count is complete and exact, but rank {victim} "
                              f"left the job on {name[sig]}", err)
                if checkpoint:
                    # Signalled mid-count: it held a chunk, which went to the others.
                    self.assertRegex(err, r"the \d+ chunks? it held go(es)? to the other ranks")
                    self.assertEqual(journal_total(self.journal, (n,))[:2],
                                     (0, f"{self.TOTALS[n]}\n"))


@unittest.skipUnless(os.environ.get("NQ_MPI_SLOW") == "1", "slow suite only")
class SignalLoop(unittest.TestCase):
    """Many SIGTERMs and SIGINTs to random workers at random moments (from
    start-up to the job's end), with and without a journal: every run ends
    within the limit with the exact total, or fails with a message and, with
    a journal, leaves one that resumes to the exact total."""
    ARGS = ("16", "-e", "mirror", "--split-depth", "4", "-t", "1", "--rank-timeout", "5")
    TOTAL = 14772512
    RUNS = int(os.environ.get("NQ_MPI_SIGNAL_RUNS", "20"))

    def test_signals_at_random_moments(self):
        rng = random.Random(os.environ.get("NQ_MPI_SIGNAL_SEED", "29"))
        tally = {}
        for sig in (signal.SIGTERM, signal.SIGINT):
            for checkpoint in (True, False):
                for i in range(self.RUNS):
                    with self.subTest(sig=int(sig), checkpoint=checkpoint, run=i), \
                            tempfile.TemporaryDirectory(prefix="nq_mpi_") as tmp:
                        journal = os.path.join(tmp, "run.journal")
                        args = list(self.ARGS) + (["--checkpoint", journal] if checkpoint
                                                  else [])
                        key = self.one_run(args, sig, rng.choice((1, 2)),
                                           rng.uniform(0.0, 3.0), journal if checkpoint
                                           else None)
                        tally[key] = tally.get(key, 0) + 1
        print(f"outcomes: {tally}", file=sys.stderr)

    def one_run(self, args, sig, victim, delay, journal):
        start = time.time()
        proc = subprocess.Popen(mpi_cmd(3, *args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=ENV)
        pid = None
        while time.time() < start + 20 and pid is None:
            pid = rank_pid(proc.pid, victim)
            time.sleep(0.005)
        time.sleep(max(0.0, start + delay - time.time()))
        if pid:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        # The count alone takes a few seconds; a rank left behind costs at
        # most the 5 s rank timeout: 90 s means a hang.
        out, err = Failures.finish(self, proc, 90)
        status = proc.returncode
        if status in (0, 3):
            self.assertIn(f"N=16: {self.TOTAL} solutions", out, err)
            if status == 3:
                self.assertIn("the count is complete and exact, but rank", err)
        else:
            self.assertNotIn(str(self.TOTAL), out)
            self.assertTrue(err.strip(), f"exit status {status} without a message")
            print(f"signal {int(sig)} to rank {victim} at {delay:.2f} s: exit status {status}: "
                  + " | ".join(l.strip() for l in err.splitlines() if l.strip()
                               and not l.startswith("---"))[:400], file=sys.stderr)
        if journal and os.path.exists(journal):
            self.assertEqual(journal_total(journal, ("16",))[:2], (0, f"{self.TOTAL}\n"))
        return status


class Checkpoint(unittest.TestCase):
    # N=16 split 4: 9844 subproblems in a few seconds, so an interruption
    # lands mid-run; every run below resumes with another number of ranks.
    ARGS = ("16", "-e", "mirror", "--split-depth", "4", "-t", "1")
    TOTAL = 14772512

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="nq_mpi_")
        self.journal = os.path.join(self.tmp.name, "run.journal")

    def tearDown(self):
        self.tmp.cleanup()

    def start(self, ranks):
        return subprocess.Popen(mpi_cmd(ranks, *self.ARGS, "--checkpoint", self.journal),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=ENV)

    def wait_until_running(self, proc, ranks):
        deadline = time.time() + 20
        while time.time() < deadline and not (os.path.exists(self.journal)
                                               and rank_pid(proc.pid, ranks - 1)):
            time.sleep(0.05)
        time.sleep(0.5)

    def test_interrupt_kill_and_resume_exact(self):
        # 1. Two ranks, SIGINT to mpiexec: a clean stop, journal flushed.
        proc = self.start(2)
        self.wait_until_running(proc, 2)
        proc.send_signal(signal.SIGINT)
        out, err = Failures.finish(self, proc, 30)
        if str(self.TOTAL) in out:
            self.skipTest("the run finished before the interruption (machine too fast)")
        self.assertNotEqual(proc.returncode, 0, err)
        # 2. Three ranks resume; rank 1 is killed: the job fails, no hang.
        proc = self.start(3)
        self.wait_until_running(proc, 3)
        victim = rank_pid(proc.pid, 1)
        if victim:
            os.kill(victim, signal.SIGKILL)
        out, err = Failures.finish(self, proc, 30)
        # 3. One rank finishes from the last flushed state: exact total.
        p = run(1, *self.ARGS, "--checkpoint", self.journal, "--json", timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["total"], self.TOTAL)
        self.assertGreater(doc["units_resumed"], 0)
        # 4. A completed journal answers at once, with any rank count.
        p = run(2, *self.ARGS, "--checkpoint", self.journal, "-q")
        self.assertEqual((p.returncode, p.stdout), (0, f"{self.TOTAL}\n"), p.stderr)

    def journal_steps(self, seconds):
        """Distinct sizes the journal takes over `seconds`, sampled often."""
        sizes, deadline = set(), time.time() + seconds
        while time.time() < deadline:
            try:
                sizes.add(os.path.getsize(self.journal))
            except OSError:
                pass
            time.sleep(0.01)
        return len(sizes)

    def kill_and_resume(self, writer, resumer):
        """Starts `writer` on a long journalled count, checks that records
        reach the file at the run layer's cadence (every 100 ms, not only at
        each 2 s fsync), kills it with SIGKILL, and has `resumer` finish the
        count exactly from what the journal kept."""
        args = ("17", "-e", "mirror", "--split-depth", "4", "-t", "1",
                "--checkpoint", self.journal)
        proc = subprocess.Popen(writer + list(args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=ENV)
        deadline = time.time() + 20
        while time.time() < deadline and not os.path.exists(self.journal):
            time.sleep(0.02)
        time.sleep(0.3)
        steps = self.journal_steps(3.0)
        for pid in [p for p in descendants(proc.pid) if is_nqueens(p)] or [proc.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        out, _ = Failures.finish(self, proc, 30)
        if "95815104" in out:
            self.skipTest("the run finished before the kill (machine too fast)")
        # Written at most 2 s apart, records would give at most 2-3 sizes.
        self.assertGreaterEqual(steps, 8, f"{writer[0]}: journal grew in only {steps} steps in 3 s")
        p = subprocess.run(resumer + list(args) + ["--json"], capture_output=True, text=True,
                           timeout=300, env=ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["total"], 95815104)
        self.assertGreater(doc["units_resumed"], 0)

    def test_mpi_journal_resumed_by_nqueens(self):
        self.kill_and_resume(mpi_cmd(2), [NQUEENS, "-t", "2"])

    def test_nqueens_journal_resumed_by_mpi(self):
        self.kill_and_resume([NQUEENS], mpi_cmd(2))

    def start_long(self, ranks):
        """A journalled N=17 count on `ranks` ranks, once rank 0 holds the
        journal; returns the mpiexec process and rank 0's pid."""
        args = ("17", "-e", "mirror", "--split-depth", "4", "-t", "1", "--checkpoint",
                self.journal)
        proc = subprocess.Popen(mpi_cmd(ranks, *args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=ENV)
        self.wait_until_running(proc, ranks)
        return proc, rank_pid(proc.pid, 0)

    def test_journal_locked_by_rank0(self):
        proc, rank0 = self.start_long(2)
        try:
            self.assertIsNotNone(rank0)
            os.kill(rank0, signal.SIGSTOP)  # so the journal holds still
            wait_stopped(rank0)
            with open(self.journal, "rb") as f:
                before = f.read()
            p = subprocess.run([NQUEENS, "17", "-e", "mirror", "--split-depth", "4",
                                "--checkpoint", self.journal], capture_output=True, text=True,
                               timeout=30)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(p.stderr, f"nqueens: journal '{self.journal}' is in use by another "
                             f"run (process {rank0}); wait for it to finish or stop it\n")
            with open(self.journal, "rb") as f:
                self.assertEqual(f.read(), before)
        finally:
            if rank0:
                os.kill(rank0, signal.SIGCONT)
            proc.send_signal(signal.SIGINT)
            Failures.finish(self, proc, 30)

    def test_journal_write_fails_mid_run(self):
        # Rank 0's journal hits a file size limit (as a full disk would)
        # once the job runs: exit 1 with one line naming the file.  The
        # limit is set on the running rank, since MPI_Init needs big files.
        proc, rank0 = self.start_long(2)
        self.assertIsNotNone(rank0)
        size = os.path.getsize(self.journal)
        resource.prlimit(rank0, resource.RLIMIT_FSIZE, (size + 3 * 64 + 32, resource.RLIM_INFINITY))
        out, err = Failures.finish(self, proc, 60)
        self.assertEqual(proc.returncode, 1, err)
        lines = [l for l in err.splitlines() if l.startswith("nqueens-mpi:")]
        self.assertEqual(lines, [f"nqueens-mpi: cannot write to journal '{self.journal}': "
                                 "File too large"], err)

    def test_foreign_journal_refused(self):
        p = run(2, "10", "--checkpoint", self.journal, "-q")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.journal, "rb") as f:
            before = f.read()
        p = run(2, "11", "--checkpoint", self.journal)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, "")
        lines = [l for l in p.stderr.splitlines() if l.startswith("nqueens-mpi:")]
        self.assertEqual(len(lines), 1, p.stderr)
        with open(self.journal, "rb") as f:
            self.assertEqual(f.read(), before)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: test_mpi.py PATH_TO_NQUEENS_MPI PATH_TO_NQUEENS")
    NQUEENS_MPI = sys.argv.pop(1)
    NQUEENS = sys.argv.pop(1)
    if MPIEXEC is None:
        print("SKIP: no mpiexec on PATH (install openmpi-bin)", file=sys.stderr)
        sys.exit(77)
    unittest.main(verbosity=2)
