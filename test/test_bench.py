#!/usr/bin/env python3
"""Tests for `nqueens-bench`: a small sweep's CSV, JSON, Markdown and SVG
read back with standard readers, a sweep interrupted by SIGTERM, the run
count options and warnings, the profile and predict modes, and bad
arguments.

Run by meson as `python3 test_bench.py PATH_TO_NQUEENS_BENCH`.  The sweep
files are parsed back and every number that is derived (medians, means,
speedups, efficiencies, Karp-Flatt, the Amdahl fit) is recomputed from the
runs in the same file.
"""
import csv
import glob
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

BENCH = None

KNOWN = {8: 92, 9: 352, 10: 724, 12: 14200}
MACHINE_KEYS = ["cpu", "cores", "physical_cores", "smt", "numa_nodes", "governor", "kernel",
                "load", "core_spread", "compiler", "flags", "kernels", "openmp", "OMP_PROC_BIND",
                "OMP_PLACES", "commit", "date"]


def run(*args, env=None):
    return subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=120, env=env)


class Sweep(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.csv = os.path.join(cls.tmp.name, "sweep.csv")
        cls.json = os.path.join(cls.tmp.name, "sweep.json")
        cls.md = os.path.join(cls.tmp.name, "sweep.md")
        cls.svg = os.path.join(cls.tmp.name, "sweep.svg")
        cls.proc = run("--n", "8-10", "--threads", "1,2", "--engine", "plain,mirror",
                       "--repeat", "3", "--warmup", "0", "--csv", cls.csv, "--json", cls.json,
                       "--markdown", cls.md, "--plot", cls.svg)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exit_and_table(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        lines = [l for l in self.proc.stdout.splitlines() if not l.startswith("amdahl:")]
        # header + per N: plain once, mirror on 1 and 2 threads
        self.assertEqual(len(lines), 1 + 3 * 3)
        self.assertTrue(lines[0].startswith("engine"))
        widths = {len(l.split()) for l in lines[1:]}
        self.assertEqual(widths, {len(lines[0].split())}, "one aligned line per case")
        for l in lines[1:]:
            self.assertIn(" yes ", l)

    def read_csv(self):
        # The CSV as a standard reader sees it, with no options; the header
        # is in the companion file.
        with open(self.csv, newline="") as f:
            rows = list(csv.DictReader(f))
        with open(self.csv + ".meta") as f:
            header = f.read().splitlines()
        return header, rows

    def test_csv(self):
        header, rows = self.read_csv()
        self.assertTrue(all(l.startswith("# ") for l in header), header)
        keys = {l[2:].split(":", 1)[0] for l in header[1:]}
        for k in MACHINE_KEYS + ["command"]:
            self.assertIn(k, keys)
        command = [l for l in header if l.startswith("# command: ")][0]
        self.assertIn("--n 8-10 --threads 1,2 --engine plain,mirror", command)
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
            seconds = [float(r["seconds"]) for r in runs]
            self.assertAlmostEqual(statistics.mean(seconds), float(runs[0]["case_mean"]),
                                   delta=2e-6)
            self.assertAlmostEqual(statistics.stdev(seconds), float(runs[0]["case_sd"]),
                                   delta=1e-5 + 1e-3 * statistics.stdev(seconds))
            if threads == 1:
                self.assertEqual(runs[0]["karp_flatt"], "")
            else:
                s = float(runs[0]["speedup"])
                kf = (1 / s - 1 / threads) / (1 - 1 / threads)
                self.assertAlmostEqual(float(runs[0]["karp_flatt"]) / kf, 1, delta=1e-3)

    def test_csv_with_pandas(self):
        try:
            import pandas
        except ImportError:
            self.skipTest("pandas not installed")
        frame = pandas.read_csv(self.csv)
        self.assertEqual(len(frame), 27)
        self.assertEqual(set(frame["n"]), {8, 9, 10})

    def test_markdown(self):
        with open(self.md) as f:
            text = f.read()
        self.assertIn("--n 8-10", text.splitlines()[0])
        rows = [l for l in text.splitlines() if l.startswith("| ") and "---" not in l]
        self.assertEqual(len(rows), 1 + 9)  # header + cases
        width = {l.count("|") for l in rows}
        self.assertEqual(len(width), 1, "every row has the header's cells")
        self.assertIn("mean ± σ", rows[0])

    def test_svg(self):
        root = ET.parse(self.svg).getroot()
        self.assertTrue(root.tag.endswith("svg"))
        text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
        for want in ["Speedup", "Efficiency", "threads (log2 scale)", "mirror N=8", "ideal",
                     "model's prediction"]:
            self.assertIn(want, text)
        self.assertNotIn("plain N=", text, "plain runs on one thread: no scaling to draw")

    def test_json(self):
        with open(self.json) as f:
            doc = json.load(f)
        for k in MACHINE_KEYS:
            self.assertIn(k, doc["machine"])
        self.assertEqual(doc["machine"]["cores"], len(os.sched_getaffinity(0)))
        self.assertIn("--n 8-10 --threads 1,2", doc["command"])
        self.assertIs(doc["complete"], True)
        self.assertEqual(len(doc["machine"]["load"]), 3)
        # The CPUs timed against each other: every one of them, the slowest
        # no faster than the fastest.
        self.assertEqual(doc["machine"]["core_cpus"], len(os.sched_getaffinity(0)))
        self.assertGreaterEqual(doc["machine"]["core_spread"], 1.0)
        self.assertIn(doc["machine"]["core_slowest"], os.sched_getaffinity(0))
        self.assertIn(doc["machine"]["core_fastest"], os.sched_getaffinity(0))
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
            self.assertAlmostEqual(c["mean"], statistics.mean(r["seconds"] for r in c["runs"]),
                                   delta=2e-6)
        # Amdahl: f = sum(x y) / sum(x^2), x = 1 - 1/p, y = 1/S - 1/p over
        # 1 < p <= cores, clamped to [0, 1].
        cores = doc["machine"]["cores"]
        fits = {(a["engine"], a["n"]): a for a in doc["amdahl"]}
        self.assertEqual(set(fits), {("mirror", n) for n in (8, 9, 10)})
        for (engine, n), a in fits.items():
            pts = [c for c in doc["cases"] if c["engine"] == engine and c["n"] == n
                   and 1 < c["threads"] <= cores]
            self.assertEqual(a["points"], len(pts))
            if not pts:
                self.assertIsNone(a["serial_fraction"])
                continue
            xs = [1 - 1 / c["threads"] for c in pts]
            ys = [1 / c["speedup"] - 1 / c["threads"] for c in pts]
            f = sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)
            self.assertAlmostEqual(a["serial_fraction"], min(1, max(0, f)), delta=1e-3)


class Interrupted(unittest.TestCase):
    """SIGTERM in the middle of a sweep: every case printed is in the CSV and
    the JSON, the files are whole, and nothing of the work files is left."""

    def start(self, tmp, args):
        self.csv = os.path.join(tmp, "out.csv")
        self.json = os.path.join(tmp, "out.json")
        for path in (self.csv, self.json):
            with open(path, "w") as f:
                f.write("old results\n")
        return subprocess.Popen([BENCH, *args, "--csv", self.csv, "--json", self.json],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_sigterm_keeps_finished_cases(self):
        with tempfile.TemporaryDirectory() as tmp:
            # N = 16 takes seconds per run, so the sweep is still running
            # when the fourth line (three cases) has been read.
            p = self.start(tmp, ["-n", "8-16", "-t", "1,2", "-e", "mirror", "-r", "3",
                                 "--warmup", "0"])
            printed = [p.stdout.readline() for _ in range(4)][1:]
            p.send_signal(signal.SIGTERM)
            # The rest through the same buffered stream: communicate()
            # reads the pipe itself and would drop the lines readline()
            # has already buffered.  stderr holds a few lines, far less
            # than the pipe takes, so reading stdout first cannot stall.
            rest = p.stdout.read()
            err = p.stderr.read()
            p.wait(timeout=60)
            self.assertEqual(p.returncode, -signal.SIGTERM, err)
            self.assertIn("interrupted", err)
            printed += [l for l in rest.splitlines() if l and not l.startswith("amdahl:")]
            shown = {(l.split()[0], int(l.split()[1]), int(l.split()[2])) for l in printed}
            self.assertGreaterEqual(len(shown), 3)
            with open(self.csv, newline="") as f:
                rows = list(csv.DictReader(f))
            in_csv = {(r["engine"], int(r["n"]), int(r["threads"])) for r in rows}
            with open(self.json) as f:
                doc = json.load(f)
            in_json = {(c["engine"], c["n"], c["threads"]) for c in doc["cases"]}
            self.assertIs(doc["complete"], False)
            self.assertLessEqual(shown, in_csv)
            self.assertEqual(in_csv, in_json)
            # at most the group being finished when the signal came is not yet printed
            self.assertLessEqual(len(in_csv - shown), 2)
            for r in rows:
                self.assertEqual(int(r["total"]), int(r["expected"]))
            for c in doc["cases"]:
                self.assertEqual(len(c["runs"]), 3)
            self.assertTrue(os.path.exists(self.csv + ".meta"))
            self.assertEqual(sorted(os.listdir(tmp)), ["out.csv", "out.csv.meta", "out.json"])

    def test_sigterm_before_any_case_keeps_old_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = self.start(tmp, ["-n", "16", "-t", "1", "-e", "mirror", "-r", "3"])
            p.stderr.readline()  # the first progress line: the sweep has begun
            p.send_signal(signal.SIGTERM)
            p.communicate(timeout=60)
            self.assertEqual(p.returncode, -signal.SIGTERM)
            for path in (self.csv, self.json):
                with open(path) as f:
                    self.assertEqual(f.read(), "old results\n", path)
            self.assertEqual(sorted(os.listdir(tmp)), ["out.csv", "out.json"])


class RunsAndWarnings(unittest.TestCase):
    def sweep(self, *args):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s.json")
            p = run("-n", "9", "-e", "mirror", "--warmup", "0", "--json", path, *args)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(path) as f:
                return p, json.load(f)

    def test_min_and_max_runs(self):
        # A precision no timer reaches: every case runs --max-runs times.
        _, doc = self.sweep("-t", "1,2", "--min-runs", "2", "--max-runs", "5",
                            "--precision", "0.0000001")
        self.assertEqual([len(c["runs"]) for c in doc["cases"]], [5, 5])
        # Two runs always meet 99%: |a - b| / 2 <= 0.99 (a + b) / 2.
        _, doc = self.sweep("-t", "1", "--min-runs", "2", "--max-runs", "5",
                            "--precision", "99%")
        self.assertEqual([len(c["runs"]) for c in doc["cases"]], [2])

    def test_oversubscribed_and_progress(self):
        cores = len(os.sched_getaffinity(0))
        p, doc = self.sweep("-t", "1,%d" % (cores + 1), "-r", "2")
        self.assertIn("warning: %d threads exceed the %d logical CPU" % (cores + 1, cores),
                      p.stderr)
        self.assertNotIn(" 1 threads", p.stderr)
        self.assertRegex(p.stderr, r"case 1/2, mirror N=9, 1 thread: run 1/2; (about .* left|under 1 s left|time left unknown)")
        marks = {c["threads"]: c["warnings"] for c in doc["cases"]}
        self.assertIn("oversubscribed", marks[cores + 1])
        self.assertNotIn("oversubscribed", marks[1])
        q = run("-n", "9", "-t", "%d" % (cores + 1), "-r", "1", "-q")
        self.assertEqual(q.stderr, "")


@unittest.skipUnless(os.environ.get("NQ_TEST_ALONE"),
                     "run alone (meson test 'bench-uneven'): other tests' threads would "
                     "load the CPUs unevenly")
class UnevenCores(unittest.TestCase):
    """A CPU kept busy by other processes runs the sweep's probe slower than
    the rest: the sweep says which, and marks every case uneven; --project
    says so too, before and after, and --quiet keeps it quiet."""

    def test_busy_cpu(self):
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            self.skipTest("one CPU: nothing to compare it with")
        slow = cpus[0]
        # Two busy processes on one CPU leave the probe's thread there about a
        # third of it, and the other CPUs all of theirs.
        busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                 preexec_fn=lambda: os.sched_setaffinity(0, {slow}))
                for _ in range(2)]
        try:
            time.sleep(0.2)
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "s.json")
                p = run("-n", "8", "-t", "1", "-r", "1", "--warmup", "0", "--json", path)
                self.assertEqual(p.returncode, 0, p.stderr)
                with open(path) as f:
                    doc = json.load(f)
            q = run("--project", "2", "-n", "12", "-e", "mitm", "-t", "1")
            quiet = run("-n", "8", "-t", "1", "-r", "1", "--warmup", "0", "-q")
        finally:
            for b in busy:
                b.kill()
                b.wait()
        machine = doc["machine"]
        self.assertGreater(machine["core_spread"], 1.10, machine)
        self.assertEqual(machine["core_slowest"], slow, machine)
        self.assertNotEqual(machine["core_fastest"], slow, machine)
        self.assertIn("warning: the CPUs ran the same work at uneven speeds: CPU %d took" % slow,
                      p.stderr)
        self.assertEqual(len(doc["cases"]), 1)
        self.assertIn("uneven", doc["cases"][0]["warnings"])
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertIn("the CPUs ran the same work at uneven speeds: CPU %d took" % slow, q.stderr)
        self.assertIn("core-hours", q.stdout)
        # ... and again when it ends, from the checks it took on the way.
        self.assertRegex(q.stderr, r"project mitm N=12: the CPUs ran uneven in [1-9]\d* of "
                                   r"[1-9]\d* checks during the projection, CPU %d up to "
                                   r"[\d.]+ times" % slow)
        self.assertEqual(quiet.stderr, "")


class Bindings(unittest.TestCase):
    def test_proc_bind_and_places(self):
        """Each OMP_PROC_BIND x OMP_PLACES pair runs in a child with the two
        variables set; its cases come back whole and compare among themselves."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "b.json")
            cpath = os.path.join(tmp, "b.csv")
            env = dict(os.environ, OMP_PLACES="threads")
            p = run("-n", "9", "-t", "1,2", "-r", "2", "--warmup", "0", "--proc-bind",
                    "close,spread", "--json", path, "--csv", cpath, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            lines = [l for l in p.stdout.splitlines() if not l.startswith("amdahl:")]
            self.assertEqual(lines[0].split()[0], "binding")
            self.assertEqual([l.split()[0] for l in lines[1:]],
                             ["close/threads"] * 2 + ["spread/threads"] * 2)
            with open(path) as f:
                doc = json.load(f)
            with open(cpath, newline="") as f:
                rows = list(csv.DictReader(f))
        got = [(c["OMP_PROC_BIND"], c["OMP_PLACES"], c["threads"]) for c in doc["cases"]]
        self.assertEqual(got, [("close", "threads", 1), ("close", "threads", 2),
                               ("spread", "threads", 1), ("spread", "threads", 2)])
        self.assertEqual({(r["proc_bind"], r["places"]) for r in rows},
                         {("close", "threads"), ("spread", "threads")})
        for c in doc["cases"]:
            self.assertEqual(len(c["runs"]), 2)
            self.assertEqual(c["runs"][0]["total"], 352)
            base = [d for d in doc["cases"] if d["OMP_PROC_BIND"] == c["OMP_PROC_BIND"]
                    and d["threads"] == 1][0]
            self.assertAlmostEqual(c["speedup"], base["median"] / c["median"], delta=1e-3)
        self.assertEqual(len(doc["amdahl"]), 2)

    def test_bad_bindings(self):
        for args, says in [(["--proc-bind", "tight"], "'tight'"),
                           (["--places", "cores,{0}"], "'{0}'"),
                           (["--predict", "--places", "cores"], "sweep only")]:
            p = run(*args)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(says, p.stderr)


class Schedules(unittest.TestCase):
    def test_schedule_list(self):
        """Every schedule is a case of its own, compared with its own 1-thread
        case; plain runs once by the library's choice."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "s.csv")
            p = run("-n", "10", "-t", "1,2", "-e", "plain,mirror", "-r", "2", "--warmup", "0",
                    "--schedule", "static,tasks,dynamic,guided,tasks", "--csv", path, "-q")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
        cases = {}
        for r in rows:
            self.assertEqual(int(r["total"]), 724)
            cases.setdefault((r["engine"], r["schedule"], int(r["threads"])), r)
        want = {("plain", "default", 1)} | {("mirror", s, t) for s in
                                            ("static", "tasks", "dynamic", "guided")
                                            for t in (1, 2)}
        self.assertEqual(set(cases), want)
        for (engine, sched, t), r in cases.items():
            base = cases[(engine, sched, 1)]
            self.assertAlmostEqual(float(r["speedup"]) * float(r["case_median"]),
                                   float(base["case_median"]), delta=1e-6)
        table = [l.split() for l in p.stdout.splitlines()[1:] if not l.startswith("amdahl")]
        self.assertEqual({l[-1] for l in table}, {"default", "static", "tasks", "dynamic",
                                                  "guided"})

    def test_bad_schedule(self):
        for args, says in [(["--schedule", "default"], "'default'"),
                           (["--schedule", "fast"], "'fast'"),
                           (["--predict", "--schedule", "tasks"], "sweep only")]:
            p = run(*args)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(says, p.stderr)


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
        # Before each doubling a line on stderr gives the projection so far
        # (2, 4, ... runs), so a projection stopped early leaves a figure;
        # -q keeps it quiet.
        p = run("--project", "2", "-n", "16", "-e", "mitm", "-t", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        timed = int(re.search(r"units, (\d+) x 8 timed", p.stdout).group(1))
        so_far = [int(m) for m in re.findall(r"project mitm N=16: (\d+) runs: [\d.e+-]+ core-hours "
                                              r"\(\+- [\d.]+%\), \d+ s; timing \d+ more",
                                              p.stderr)]
        self.assertEqual(so_far, [2 << i for i in range(timed.bit_length() - 2)], p.stderr)
        q = run("--project", "2", "-n", "16", "-e", "mitm", "-t", "1", "-q")
        self.assertEqual(q.returncode, 0, q.stderr)
        self.assertNotIn("runs:", q.stderr)
        # With a time limit the runs may double past 16 x S; the line says
        # why they stopped.
        p = run("--project", "2", "--project-limit", "60", "-n", "12", "-e", "mitm", "-t", "1")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"(within 10%|every stratum timed|at the time limit), \d+ s\)")
        for args in (["--project-limit", "0", "--project", "2"], ["--project-limit", "5"]):
            p = run("-n", "12", *args)
            self.assertEqual(p.returncode, 2, p.stdout)
            self.assertIn("--project-limit", p.stderr)
        # Units by sample: mitm's join blocks, a share in [10^-6, 1], with
        # --project.
        for args in (["-n", "24", "-e", "mitm", "--project-part", "0.5"],
                     ["-n", "24", "-e", "mitm", "--project", "2", "--project-part", "0"],
                     ["-n", "24", "-e", "mitm", "--project", "2", "--project-part", "1.5"],
                     ["-n", "24", "-e", "mitm", "--project", "2", "--project-part", "1e-7"],
                     ["-n", "24", "-e", "full", "--project", "2", "--project-part", "0.5"]):
            p = run(*args)
            self.assertEqual(p.returncode, 2, (args, p.stdout))
            self.assertIn("--project-part", p.stderr)
            self.assertEqual(p.stderr.count("\n"), 1, p.stderr)
        p = run("--project", "2", "--project-part", "50%", "-n", "24", "-e", "mitm", "-t", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertRegex(p.stdout, r"project: mitm N=24, 677294 units, \d+ x 1 timed "
                         r"\(stratified, one join block in 2 of each unit, scaled\): [\d.]+ s a unit")
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
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
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

    def test_cores(self):
        """--cores times every CPU of the affinity mask and prints one line;
        with one CPU the slowest is the fastest."""
        p = run("--cores")
        self.assertEqual(p.returncode, 0, p.stderr)
        cpus = sorted(os.sched_getaffinity(0))
        m = re.fullmatch(r"cores: (\d+) CPUs? at once, the slowest \(CPU (\d+)\) ([\d.]+) times "
                         r"the fastest's time \(CPU (\d+)\): (even|uneven)\n", p.stdout)
        self.assertIsNotNone(m, p.stdout)
        self.assertEqual(int(m.group(1)), len(cpus))
        self.assertIn(int(m.group(2)), cpus)
        self.assertIn(int(m.group(4)), cpus)
        self.assertGreaterEqual(float(m.group(3)), 1.0)
        self.assertEqual(m.group(5), "uneven" if float(m.group(3)) > 1.10 else "even")
        one = subprocess.run([BENCH, "--cores"], capture_output=True, text=True, timeout=60,
                             preexec_fn=lambda: os.sched_setaffinity(0, {cpus[0]}))
        self.assertEqual(one.returncode, 0, one.stderr)
        self.assertEqual(one.stdout, "cores: 1 CPU at once, the slowest (CPU %d) 1.000 times the "
                         "fastest's time (CPU %d): even\n" % (cpus[0], cpus[0]))
        p = run("--cores", "--csv", "x.csv")
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("--csv", p.stderr)

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


class LostOutput(unittest.TestCase):
    """A table or file that cannot be written is a failure: one line, exit 1."""
    SWEEP = ["--n", "8", "--threads", "1", "--repeat", "1", "--warmup", "0", "--quiet"]

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
        for opt in ["--csv", "--json", "--markdown"]:
            p = self.run_to([*self.SWEEP, opt, "/dev/full"], subprocess.DEVNULL)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(p.stderr, "nqueens-bench: cannot write '/dev/full': No space left "
                             "on device\n")


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
        self.assert_usage_error(["--n", "8", "--plot", "out.png"], "rsvg-convert")

    def test_case_that_cannot_be_measured(self):
        # A sweep with a case the engine cannot count measures nothing and
        # says why (mitm counts up to N = 28).
        self.assert_usage_error(["-n", "29", "-e", "mitm", "-t", "1"], "N=29")
        self.assert_usage_error(["-n", "12,29", "-e", "mirror,mitm", "-t", "1"], "N=29")

    def test_audit_needs_join_units(self):
        # Boards below mitm's smallest unit-split board have nothing to audit:
        # bad input, not a failed check.
        self.assert_usage_error(["-n", "3", "--audit", "1"], "N=3")
        self.assert_usage_error(["-n", "3-5", "--audit", "1"], "N=3")

    def test_plain_predict_and_profile(self):
        # plain runs on one thread; asking what threads would get from it
        # is a question with an answer, not an error.
        p = run("-e", "plain", "--predict", "-n", "12", "-t", "1,2")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([l.split()[2] for l in p.stdout.splitlines()[1:]], ["1", "2"])
        p = run("-e", "plain", "--profile", "-n", "9", "-t", "2")
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_bad_run_counts(self):
        self.assert_usage_error(["--min-runs", "0"], "--min-runs")
        self.assert_usage_error(["--max-runs", "1001"], "--max-runs")
        self.assert_usage_error(["--precision", "0"], "'0'")
        self.assert_usage_error(["--precision", "150%"], "'150%'")
        self.assert_usage_error(["--precision", "x"], "'x'")
        self.assert_usage_error(["--predict", "--markdown", "x.md"], "--markdown")


if __name__ == "__main__":
    BENCH = sys.argv.pop(1)
    unittest.main(verbosity=2)
