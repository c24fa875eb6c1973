#!/usr/bin/env python3
"""Tests for `nqueens-mpi` when a job does not go as planned: recovery.

A rank killed (SIGKILL) fails the job without a hang; a rank stopped
(SIGSTOP, as a hung node leaves it) is given up after --rank-timeout and
its chunks counted by the others, or rejoins; a worker stopped by SIGTERM
or SIGINT leaves the job, which completes exactly with exit status 3
(Signals, and SignalLoop's random signals in the slow suite); a journalled
run interrupted or killed resumes to the exact total on any number of
ranks or in nqueens, and the other way round (Checkpoint).  These runs
are long (N = 16 and 17) so that a signal lands mid-count, and kept apart
from test_mpi.py's jobs that go as planned; both start the programs
through mpi_util.py.

Run by meson as `python3 test_mpi_recovery.py PATH_TO_NQUEENS_MPI
PATH_TO_NQUEENS` (declared only when MPI was found at configure time);
SKIP without mpiexec.
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

import mpi_util
from mpi_util import ENV, finish, journal_total, mpi_cmd, run
from proc_util import descendants, ended, handles, is_nqueens, rank_pid, wait_stopped


class JournalTest(unittest.TestCase):
    """A test with a folder of its own, removed after it, for a job's
    journal (self.journal, not created) and whatever else it writes."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="nq_mpi_")
        self.journal = os.path.join(self.tmp.name, "run.journal")

    def tearDown(self):
        self.tmp.cleanup()


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

    def test_killed_rank_fails_the_job(self):
        for victim in (1, 0):
            with self.subTest(victim=victim):
                proc = self.start_long(2)
                pid = rank_pid(proc.pid, victim)
                self.assertIsNotNone(pid, "rank process not found")
                os.kill(pid, signal.SIGKILL)
                out, err = finish(self, proc, 30)
                self.assertNotEqual(proc.returncode, 0, err)
                self.assertNotIn("95815104", out)

    def test_sigterm_cancels_promptly(self):
        proc = self.start_long(2)
        proc.send_signal(signal.SIGTERM)
        out, err = finish(self, proc, 30)
        self.assertNotEqual(proc.returncode, 0, err)
        self.assertNotIn("95815104", out)


class Stalls(JournalTest):
    """Ranks stopped with SIGSTOP, as a hung node or a network partition
    leaves them, must not hold the job: after --rank-timeout seconds of
    silence rank 0 gives the chunks each held to the live ranks.  Split
    depth 1 makes chunks of about a second, longer than the 1 s timeout, so
    only their heartbeats keep busy ranks from being taken for stalled."""
    ARGS = ("17", "-e", "mirror", "--split-depth", "1", "-t", "1")
    TOTAL = 95815104

    def setUp(self):
        super().setUp()
        self.errors = os.path.join(self.tmp.name, "stderr")

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
        out, _ = finish(self, proc, 120)
        err = self.stderr()
        self.assertEqual(proc.returncode, 3, err)
        self.assertIn(f"N=17: {self.TOTAL} solutions", out)
        self.assertIn("rank 1 has not been heard from for", err)
        self.assertIn("rank 2 answered again after", err)
        self.assertEqual(err.count("has not been heard from"), 2, err)
        self.assertIn("the count is complete and exact, but rank 1 has been silent", err)
        self.assertTrue(ended(stopped[0], 10), "the stopped rank outlived the job")
        # The journal holds every chunk and the end: nqueens answers from it.
        p = subprocess.run([mpi_util.NQUEENS, *self.ARGS, "--checkpoint", self.journal, "--json"],
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
        out, err = finish(self, proc, 60)
        self.assertEqual(proc.returncode, 3, err)
        self.assertIn("N=12: 14200 solutions", out)
        self.assertIn("the count is complete and exact, but a rank has not reached the end of "
                      "the job within 1 s", err)
        p = subprocess.run([mpi_util.NQUEENS, "12", "--checkpoint", self.journal, "-q"],
                           capture_output=True, text=True, timeout=60, env=ENV)
        self.assertEqual((p.returncode, p.stdout), (0, "14200\n"), p.stderr)


class Signals(JournalTest):
    """A rank other than 0 stopped by SIGTERM or SIGINT (a scheduler draining
    its node) is a rank left behind: its chunks go to the others, the job
    completes with the exact total, says so and exits with status 3."""
    TOTALS = {"16": 14772512, "17": 95815104}

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
        out, err = finish(self, proc, 90)
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
        out, err = finish(self, proc, 90)
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


class Checkpoint(JournalTest):
    # N=16 split 4: 9844 subproblems in a few seconds, so an interruption
    # lands mid-run; every run below resumes with another number of ranks.
    ARGS = ("16", "-e", "mirror", "--split-depth", "4", "-t", "1")
    TOTAL = 14772512

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
        out, err = finish(self, proc, 30)
        if str(self.TOTAL) in out:
            self.skipTest("the run finished before the interruption (machine too fast)")
        self.assertNotEqual(proc.returncode, 0, err)
        # 2. Three ranks resume; rank 1 is killed: the job fails, no hang.
        proc = self.start(3)
        self.wait_until_running(proc, 3)
        victim = rank_pid(proc.pid, 1)
        if victim:
            os.kill(victim, signal.SIGKILL)
        out, err = finish(self, proc, 30)
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
        out, _ = finish(self, proc, 30)
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
        self.kill_and_resume(mpi_cmd(2), [mpi_util.NQUEENS, "-t", "2"])

    def test_nqueens_journal_resumed_by_mpi(self):
        self.kill_and_resume([mpi_util.NQUEENS], mpi_cmd(2))

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
            p = subprocess.run([mpi_util.NQUEENS, "17", "-e", "mirror", "--split-depth", "4",
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
            finish(self, proc, 30)

    def test_journal_write_fails_mid_run(self):
        # Rank 0's journal hits a file size limit (as a full disk would)
        # once the job runs: exit 1 with one line naming the file.  The
        # limit is set on the running rank, since MPI_Init needs big files.
        proc, rank0 = self.start_long(2)
        self.assertIsNotNone(rank0)
        size = os.path.getsize(self.journal)
        resource.prlimit(rank0, resource.RLIMIT_FSIZE, (size + 3 * 64 + 32, resource.RLIM_INFINITY))
        out, err = finish(self, proc, 60)
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
    mpi_util.main("test_mpi_recovery.py")
