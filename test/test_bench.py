#!/usr/bin/env python3
"""Tests for `nqueens-bench`: a small sweep's CSV and JSON, the profile and
predict modes, and bad arguments.

Run by meson as `python3 test_bench.py PATH_TO_NQUEENS_BENCH`.  The sweep
files are parsed back and every number that is derived (medians, speedups,
efficiencies) is recomputed from the runs in the same file.
"""
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import unittest

BENCH = None

KNOWN = {8: 92, 9: 352, 10: 724, 12: 14200}
MACHINE_KEYS = ["cpu", "cores", "compiler", "flags", "openmp", "OMP_PROC_BIND", "OMP_PLACES",
                "commit", "date"]


def run(*args, env=None):
    return subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=120, env=env)


class Sweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.csv = os.path.join(cls.tmp.name, "sweep.csv")
        cls.json = os.path.join(cls.tmp.name, "sweep.json")
        cls.proc = run("--n", "8-10", "--threads", "1,2", "--engine", "plain,mirror",
                       "--repeat", "3", "--warmup", "0", "--csv", cls.csv, "--json", cls.json)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_and_table(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        lines = self.proc.stdout.splitlines()
        # header + per N: plain once, mirror on 1 and 2 threads
        self.assertEqual(len(lines), 1 + 3 * 3)
        self.assertTrue(lines[0].startswith("engine"))
        widths = {len(l.split()) for l in lines[1:]}
        self.assertEqual(widths, {len(lines[0].split())}, "one aligned line per case")
        for l in lines[1:]:
            self.assertIn(" yes ", l)

    def read_csv(self):
        with open(self.csv) as f:
            text = f.read()
        header = [l for l in text.splitlines() if l.startswith("#")]
        body = [l for l in text.splitlines() if not l.startswith("#")]
        return header, list(csv.DictReader(body))

    def test_csv(self):
        header, rows = self.read_csv()
        keys = {l[2:].split(":", 1)[0] for l in header[1:]}
        for k in MACHINE_KEYS:
            self.assertIn(k, keys)
        self.assertEqual(len(rows), 3 * 3 * 3)
        cases = {}
        for r in rows:
            n = int(r["n"])
            self.assertEqual(int(r["total"]), KNOWN[n])
            self.assertEqual(int(r["expected"]), KNOWN[n])
            self.assertEqual(r["correct"], "yes")
            cases.setdefault((r["engine"], n, int(r["threads"])), []).append(r)
        for (engine, n, threads), runs in cases.items():
            self.assertEqual(len(runs), 3)
            med = statistics.median(float(r["seconds"]) for r in runs)
            self.assertAlmostEqual(med, float(runs[0]["case_median"]), delta=2e-6)
            base = cases[(engine, n, 1)]
            speedup = float(base[0]["case_median"]) / float(runs[0]["case_median"])
            self.assertAlmostEqual(float(runs[0]["speedup"]) / speedup, 1, delta=1e-3)
            self.assertAlmostEqual(float(runs[0]["efficiency"]) * threads / speedup, 1,
                                   delta=1e-3)
            plain = float(cases[("plain", n, 1)][0]["case_median"])
            self.assertAlmostEqual(float(runs[0]["vs_plain"]) * float(runs[0]["case_median"])
                                   / plain, 1, delta=1e-3)

    def test_json(self):
        with open(self.json) as f:
            doc = json.load(f)
        for k in MACHINE_KEYS:
            self.assertIn(k, doc["machine"])
        self.assertEqual(doc["machine"]["cores"], len(os.sched_getaffinity(0)))
        self.assertEqual(len(doc["cases"]), 9)
        medians = {}
        for c in doc["cases"]:
            self.assertTrue(c["correct"])
            self.assertEqual(len(c["runs"]), 3)
            for r in c["runs"]:
                self.assertEqual(r["total"], KNOWN[c["n"]])
            med = statistics.median(r["seconds"] for r in c["runs"])
            self.assertAlmostEqual(med, c["median"], delta=2e-6)
            self.assertEqual(c["min"], min(r["seconds"] for r in c["runs"]))
            medians[(c["engine"], c["n"], c["threads"])] = c["median"]
        for c in doc["cases"]:
            speedup = medians[(c["engine"], c["n"], 1)] / c["median"]
            self.assertAlmostEqual(c["speedup"] / speedup, 1, delta=1e-3)
            self.assertAlmostEqual(c["efficiency"], c["speedup"] / c["threads"], delta=1e-4)


class Audit(unittest.TestCase):
    def test_audit_and_project(self):
        """--audit checks spread units of mitm against the independent search
        (even and odd N), --project prints a projection; other engines and
        sweep outputs are refused."""
        p = run("--audit", "5", "-n", "12,13", "-t", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.count(": ok\n"), 10, p.stdout)
        self.assertEqual(p.stdout.count("0 mismatches"), 2, p.stdout)
        p = run("--project", "2", "-n", "12", "-e", "mitm", "-t", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("core-hours", p.stdout)
        for args in (["-e", "full"], ["--csv", "x.csv"]):
            self.assertEqual(run("--audit", "2", "-n", "12", *args).returncode, 2)


class PeakMemory(unittest.TestCase):
    def test_peak_per_case(self):
        """mitm at N=18 holds its 7.3 MiB quarter store (915k placements x 8
        bytes); N=10 needs next to nothing.  (Cases run in increasing N, so
        this cannot tell a per-run peak from the process's; that the reset
        works was checked by hand: see bench/peak.c.)"""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "peak.csv")
            p = run("--n", "18,10", "--threads", "1", "--engine", "mitm", "--repeat", "1",
                    "--warmup", "0", "--csv", path)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = p.stdout.splitlines()
            col = lines[0].split().index("peak_MiB")
            shown = {int(l.split()[1]): float(l.split()[col]) for l in lines[1:]}
            with open(path) as f:
                rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
        peak = {int(r["n"]): int(r["peak_kib"]) for r in rows}
        self.assertEqual(sorted(peak), [10, 18])
        for n in peak:
            self.assertAlmostEqual(shown[n], peak[n] / 1024, delta=0.06)
        self.assertGreater(peak[18], 7 * 1024)
        self.assertLess(peak[10], peak[18] - 7 * 1024)


class Modes(unittest.TestCase):
    def test_profile(self):
        p = run("--profile", "--n", "10", "--threads", "1,2", "--repeat", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertRegex(out, r"profile: engine mirror, N=10, split depth \d+, \d+ units")
        self.assertIn("724 solutions (correct)", out)
        m = re.search(r"^\s+cpu time\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)%", out, re.M)
        self.assertIsNotNone(m, out)
        units, total_ms, mean_ms = int(m.group(1)), float(m.group(2)), float(m.group(3))
        self.assertAlmostEqual(mean_ms * units / total_ms, 1, delta=1e-3)
        self.assertRegex(out, r"(?m)^\s+estimate\s+\d+", "estimate distribution")
        rows = {}
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 7 and f[0].isdigit():
                rows[int(f[0])] = f
        self.assertEqual(sorted(rows), [2 ** k for k in range(11)])
        # P = 1: the makespan is the sum of the unit costs, efficiency 1.
        self.assertAlmostEqual(float(rows[1][2]) * 1000 / total_ms, 1, delta=1e-3)
        self.assertEqual(rows[1][3], "1.000")
        # threads chunks pred_s eff_time eff_est measured_s meas_eff
        self.assertNotEqual(rows[1][5], "-", "measured on 1 thread")
        self.assertNotEqual(rows[2][5], "-", "measured on 2 threads")
        self.assertEqual(rows[4][5], "-", "4 threads not asked for")

    def test_predict(self):
        p = run("--predict", "--n", "12,14", "--threads", "1,4")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 1 + 4)
        for l in lines[1:]:
            f = l.split()
            self.assertEqual(f[0], "mirror")
            self.assertGreaterEqual(float(f[5]), 0.95 if f[2] == "4" else 1.0)

    def test_predict_ranks(self):
        # One rank: journal chunks on T threads, no spare-chunk allowance,
        # so the greedy and pessimistic efficiencies agree.
        p = run("--predict", "--n", "12", "--threads", "1,4", "--ranks", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0].split()[:5], ["engine", "N", "ranks", "threads", "workers"])
        self.assertEqual(len(lines), 1 + 2)
        for l in lines[1:]:
            f = l.split()
            self.assertEqual(f[2], "1")
            self.assertEqual(f[4], f[3])
            self.assertEqual(f[8], f[9])
        # Four ranks of 2: planned for 8 threads, pessimistic <= greedy.
        p = run("--predict", "--n", "12", "--threads", "2", "--ranks", "4")
        self.assertEqual(p.returncode, 0, p.stderr)
        f = p.stdout.splitlines()[1].split()
        self.assertEqual(f[2:5], ["4", "2", "8"])
        self.assertLessEqual(float(f[9]), float(f[8]))


@unittest.skipUnless(any(os.access(os.path.join(d, "gnuplot"), os.X_OK)
                         for d in os.environ.get("PATH", "").split(os.pathsep) if d),
                     "gnuplot not installed")
class Plot(unittest.TestCase):
    def test_svg(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s.svg")
            p = run("--n", "8-9", "--threads", "1,2", "--repeat", "1", "--plot", path)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(path) as f:
                self.assertIn("<svg", f.read())


class LostOutput(unittest.TestCase):
    """A table or file that cannot be written is a failure: one line, exit 1."""
    SWEEP = ["--n", "8", "--threads", "1", "--repeat", "1", "--warmup", "0"]

    def run_to(self, args, stdout, preexec=None, env=None):
        return subprocess.run([BENCH, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                              timeout=120, preexec_fn=preexec, env=env)

    def test_stdout(self):
        for args in [self.SWEEP, ["--help"], ["--predict", "--n", "12", "--threads", "1,2"]]:
            with self.subTest(args=args):
                with open("/dev/full", "w") as full:
                    p = self.run_to(args, full)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual(p.stderr, "nqueens-bench: cannot write to standard output: "
                                 "No space left on device\n")
                p = self.run_to(args, None, lambda: os.close(1))
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual(p.stderr, "nqueens-bench: cannot write to standard output: "
                                 "Bad file descriptor\n")

    def test_csv_and_json(self):
        for opt in ["--csv", "--json"]:
            p = self.run_to([*self.SWEEP, opt, "/dev/full"], subprocess.DEVNULL)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(p.stderr, "nqueens-bench: cannot write '/dev/full': No space left "
                             "on device\n")

    def test_plot(self):
        # A stand-in gnuplot: one that fails, one that exits 0 but writes
        # nothing (as gnuplot does when its output cannot be written).
        with tempfile.TemporaryDirectory() as tmp:
            gnuplot = os.path.join(tmp, "gnuplot")
            out = os.path.join(tmp, "s.svg")
            for script, says in [("cat >/dev/null; exit 1", "gnuplot could not draw"),
                                 ("cat >/dev/null; exit 0", "gnuplot wrote nothing")]:
                with open(gnuplot, "w") as f:
                    f.write(f"#!/bin/sh\n{script}\n")
                os.chmod(gnuplot, 0o755)
                env = dict(os.environ, PATH=tmp + os.pathsep + os.environ.get("PATH", ""))
                p = self.run_to([*self.SWEEP, "--plot", out], subprocess.DEVNULL, env=env)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
                self.assertIn(says, p.stderr)
                self.assertIn(out, p.stderr)


class BadArguments(unittest.TestCase):
    def assert_usage_error(self, args, mentions, env=None):
        p = run(*args, env=env)
        self.assertEqual(p.returncode, 2, f"{args}: exit {p.returncode}, {p.stderr!r}")
        self.assertEqual(p.stdout, "")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"{args}: {p.stderr!r}")
        self.assertIn(mentions, lines[0])

    def test_single_thread_count_is_honoured(self):
        # One thread count must run at that count, for every engine but plain.
        p = run("--n", "10", "--threads", "2", "--engine", "plain,mirror", "--repeat", "1",
                "--warmup", "0")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [l.split() for l in p.stdout.splitlines()[1:]]
        self.assertEqual([(r[0], r[2]) for r in rows], [("plain", "1"), ("mirror", "2")])

    def test_bad_lists(self):
        self.assert_usage_error(["--threads", "0"], "'0'")
        self.assert_usage_error(["--threads", "1,,2"], "thread count")
        self.assert_usage_error(["--threads", "4097"], "'4097'")
        self.assert_usage_error(["--n", "5-3"], "'5-3'")
        self.assert_usage_error(["--n", "33"], "'33'")
        self.assert_usage_error(["--n", "x"], "'x'")
        self.assert_usage_error(["--n", ""], "empty")
        self.assert_usage_error(["--repeat", "0"], "'0'")
        self.assert_usage_error(["--split-depth", "9"], "split depth 9 is out of range")
        # The library's settings check refuses what does not apply, before timing.
        self.assert_usage_error(["-e", "mitm", "--split-depth", "2", "-n", "12"],
                                "does not apply to engine mitm")
        self.assert_usage_error(["--predict", "--ranks", "0"], "'0'")
        self.assert_usage_error(["--predict", "--ranks", "abc"], "'abc'")
        self.assert_usage_error(["--predict", "--ranks", "8", "--threads", "1024"], "4096")
        self.assert_usage_error(["--ranks", "2"], "--predict")

    def test_control_characters_stay_out_of_messages(self):
        # Found by the fuzzer (test/fuzz/corpus/bench_list/newline_in_list).
        self.assert_usage_error(["--n", "1\n2"], "invalid board size '1?2'")
        self.assert_usage_error(["--engine", "mirror,fu\tll"], "unknown engine 'fu?ll'")

    def test_unknown_engine_and_option(self):
        self.assert_usage_error(["--engine", "fast"], "'fast'")
        self.assert_usage_error(["--engine", "mirror,nope"], "'nope'")
        self.assert_usage_error(["--bogus"], "--bogus")
        self.assert_usage_error(["stray"], "'stray'")

    def test_unwritable_outputs(self):
        for opt in ["--csv", "--json"]:
            self.assert_usage_error(["--n", "8", opt, "/nonexistent/dir/out"],
                                    "/nonexistent/dir/out")
        self.assert_usage_error(["--n", "8", "--plot", "out.pdf"], "'out.pdf'")

    def test_plot_without_gnuplot(self):
        env = dict(os.environ, PATH="")
        self.assert_usage_error(["--n", "8", "--plot", "x.svg"], "apt-get install gnuplot-nox",
                                env=env)


if __name__ == "__main__":
    BENCH = sys.argv.pop(1)
    unittest.main(verbosity=2)
