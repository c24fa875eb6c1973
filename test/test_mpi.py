#!/usr/bin/env python3
"""Tests for `nqueens-mpi`, the hybrid MPI + OpenMP counter: the jobs that
go as planned.

Every combination of ranks and threads counts the known totals with every
engine and schedule; bad input, --help and lost output are reported once,
by rank 0; the start-up asks Open MPI for shared memory on one node
(Transport), NQ_MPI_TRACE shows each rank's phases (Trace) and a crash in
MPI_Finalize leaves the job's status (Ending); bench/mpi_overhead.sh runs
whole (OverheadScript, slow suite only).  What happens when a rank is
killed, stopped or signalled, and journals resumed across front ends, is in
test_mpi_recovery.py; how both start the programs is in mpi_util.py.

Run by meson as `python3 test_mpi.py PATH_TO_NQUEENS_MPI PATH_TO_NQUEENS`
(declared only when MPI was found at configure time); SKIP without mpiexec.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import mpi_util
from mpi_util import ENV, journal_total, mpi_cmd, run

KNOWN = {8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200, 13: 73712, 14: 365596}


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
        program = os.path.abspath(mpi_util.NQUEENS_MPI)
        return os.path.dirname(os.path.dirname(os.path.dirname(program)))

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
        for when in ("start", "end"):
            self.assertRegex(out, r"at the %s: cores: \d+ CPUs? at once, the slowest "
                             r"\(CPU \d+\) [\d.]+ times the fastest's time \(CPU \d+\): "
                             r"(even|uneven)\n" % when)
        self.assertIn("N=9 phases of nqueens-mpi 2 ranks x 1 thread", out)
        self.assertRegex(out, r"rank  1 +[0-9.]+ s  cpu +[0-9.]+  thread +[0-9.]+  MPI_Init done")
        # Open MPI's share, once per traced configuration (N=9 takes
        # nqueens next to no time: its shares are n/a or large).
        share = r"(?:n/a|[0-9.]+%)"
        shares = re.findall(r"Open MPI alone: the launcher ([0-9.]+) s before the first rank "
                            r"and ([0-9.]+) s after the last \(%s of nqueens -t 2, [0-9.]+ s\),\n"
                            r"    loading and MPI_Init ([0-9.]+) CPU s in all ranks, "
                            r"[0-9.]+ s of 2 cores "
                            r"\(%s\): %s in all\n" % (share, share, share), out)
        self.assertEqual(len(shares), 2, out)
        for before, after, init in shares:
            self.assertGreater(float(before), 0.0)
            self.assertGreater(float(init), 0.0)

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
        # Leaks are checked on N=8, once a combination (the rank and thread
        # paths); each engine's are checked in test_engines_and_split.
        seen = {}
        for ranks in (1, 2, 3):
            for threads in (1, 2):
                full = (ranks, threads) in ((2, 2), (3, 1))
                for n, total in KNOWN.items():
                    if not full and n not in (8, 11, 14):
                        continue
                    with self.subTest(ranks=ranks, threads=threads, n=n):
                        p = run(ranks, str(n), "-t", str(threads), "--json",
                                leaks=n == 8)
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
        # (oversubscribed) with mirror.  A bad name is refused once.  Leaks
        # are checked under the task schedule: the others differ only in
        # the OpenMP loop that hands out the same chunks.
        cases = [(schedule, 2, 2, "mitm") for schedule in ("tasks", "dynamic", "guided", "static")]
        cases.append(("tasks", 1, 3, "mirror"))
        for schedule, ranks, threads, engine in cases:
            with self.subTest(schedule=schedule, ranks=ranks, threads=threads, engine=engine):
                p = run(ranks, "13", "-e", engine, "-t", str(threads), "--schedule", schedule,
                        "-q", leaks=schedule == "tasks")
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(p.stdout, "73712\n")
        p = run(2, "13", "--schedule", "fastest")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("unknown schedule 'fastest'", p.stderr)
        self.assertEqual(p.stderr.count("unknown schedule"), 1)

    def test_singleton_without_mpiexec(self):
        p = subprocess.run([mpi_util.NQUEENS_MPI, "12", "-t", "2"], capture_output=True, text=True,
                           timeout=60, env=ENV)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("14200 solutions", p.stdout)
        self.assertIn("on 1 rank", p.stdout)


class Ending(unittest.TestCase):
    """Open MPI 4.1.4 can die on a segfault in MPI_Finalize after the job
    has ended (closing.c): the rank then leaves with the job's status and
    one line on stderr.  The test-only fault crashes the last rank once
    its MPI_Finalize is through."""

    @unittest.skipUnless(mpi_util.HOOKS, "the build has no fault hook (configure with -Dtest_hooks=enabled)")
    def test_crash_in_finalize(self):
        env = dict(mpi_util.UNCHECKED_ENV, NQ_TEST_FAULT="finalize")
        line = "nqueens-mpi: Open MPI crashed in MPI_Finalize after the job ended"
        for ranks in (1, 2):
            with self.subTest(ranks=ranks):
                p = subprocess.run(mpi_cmd(ranks, "10", "-t", "1", "-q"), capture_output=True,
                                   text=True, timeout=60, env=env)
                self.assertEqual((p.returncode, p.stdout), (0, "724\n"), p.stderr)
                self.assertEqual(p.stderr.count(line), 1, p.stderr)
        p = subprocess.run(mpi_cmd(2, "10", "--schedule", "fastest"), capture_output=True,
                           text=True, timeout=60, env=env)
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertEqual(p.stderr.count(line), 1, p.stderr)


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

    def test_rank_bound_to_fewer_cpus_than_threads(self):
        # Rank 1 alone bound to one CPU (mpiexec's colon form runs it under
        # taskset): rank 0 warns, once, with rank 1's figures; every rank
        # bound: the first, and how many more; none bound: nothing.
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2 or len(cpus) != os.cpu_count() or not shutil.which("taskset"):
            self.skipTest("needs 2 or more CPUs, all allowed, and taskset")
        args = [mpi_util.NQUEENS_MPI, "12", "-t", "2", "-q"]
        one = ["taskset", "-c", str(cpus[0])]
        cases = [
            (mpi_cmd(1, *args[1:]) + [":", "-n", "1"] + one + args,
             r"rank 1 runs 2 threads but may use only 1 of the machine's \d+ CPUs"),
            (one + mpi_cmd(3, *args[1:]),
             r"rank 0 \(and 2 more ranks alike\) runs 2 threads but may use only 1 of"),
        ]
        for cmd, who in cases:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=ENV)
            self.assertEqual((p.returncode, p.stdout), (0, "14200\n"), p.stderr)
            lines = [l for l in p.stderr.splitlines() if "nqueens-mpi:" in l]
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertRegex(lines[0], r"^nqueens-mpi: warning: " + who)
            self.assertIn("(mpiexec --bind-to none or --map-by slot:PE=2, "
                          "srun --cpus-per-task=2) or use -t 1", lines[0])
        p = run(2, *args[1:])
        self.assertEqual((p.returncode, p.stdout), (0, "14200\n"), p.stderr)
        self.assertNotIn("warning", p.stderr)

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
            p = subprocess.run([mpi_util.NQUEENS_MPI, "10"], stdout=full, stderr=subprocess.PIPE,
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
                p = alone(mpi_util.NQUEENS_MPI, "10", "--rank-timeout", value)
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                self.assertIn(f"invalid rank timeout '{value}': expected whole seconds from 1 "
                              "to 86400", p.stderr)
        p = alone(mpi_util.NQUEENS_MPI, "8", "--solutions", "--rank-timeout", "5")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--rank-timeout applies only to counting", p.stderr)
        p = alone(mpi_util.NQUEENS, "8", "--rank-timeout", "5")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--rank-timeout applies only to nqueens-mpi", p.stderr)
        self.assertNotIn("--rank-timeout", alone(mpi_util.NQUEENS, "--help").stdout)


if __name__ == "__main__":
    mpi_util.main("test_mpi.py")
