#!/usr/bin/env python3
"""CLI tests for `nqueens`: bad input, --json, --solutions, --help, output
that cannot be written.

Run by meson as `python3 test_cli.py PATH_TO_NQUEENS`.  Each bad input must
give exactly one line on stderr that names the bad value, nothing on stdout,
and exit status 2.  A result that cannot be written (stdout on /dev/full or
closed) must give one line and exit status 1.  Solutions are checked by an
independent validity test.
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import unittest

NQUEENS = None

KNOWN = {1: 1, 4: 2, 5: 10, 6: 4, 8: 92, 10: 724, 12: 14200}


# stdbuf preloads a library, which ASan would refuse ahead of its own.
STDBUF_ENV = dict(os.environ, ASAN_OPTIONS=":".join(filter(None, [
    os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"])))


def run(*args):
    return subprocess.run([NQUEENS, *args], capture_output=True, text=True, timeout=60)


def links_libomp():
    """True when nqueens runs on LLVM's OpenMP runtime (a clang build)."""
    p = subprocess.run(["ldd", NQUEENS], capture_output=True, text=True)
    return "libomp" in p.stdout


def valid(cols):
    n = len(cols)
    if sorted(cols) != list(range(n)):
        return False
    return all(abs(cols[a] - cols[b]) != b - a for a in range(n) for b in range(a + 1, n))


class BadInput(unittest.TestCase):
    def assert_usage_error(self, args, mentions):
        p = run(*args)
        self.assertEqual(p.returncode, 2, f"{args}: exit {p.returncode}, stderr {p.stderr!r}")
        self.assertEqual(p.stdout, "", f"{args}: stdout must be empty")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"{args}: want one stderr line, got {p.stderr!r}")
        self.assertIn(mentions, lines[0], f"{args}: error should name {mentions!r}")

    def test_bad_board_sizes(self):
        # Not an integer: the parser quotes what was typed.
        for n in ["abc", "16x", "", "99999999999999999999", "1.5", " 8"]:
            with self.subTest(n=n):
                self.assert_usage_error([n], f"'{n}'")
        for n in ["-1", "-12"]:
            self.assert_usage_error([n], f"invalid board size '{n}'")
        # Out of range: the library's check names the value and the range.
        for n in ["0", "33", "-5"]:
            with self.subTest(n=n):
                self.assert_usage_error(["--", n], f"N={n} is out of range: allowed 1 to 32")

    def test_bad_threads(self):
        for t in ["-1", "abc", "", "2x", "99999999999"]:
            with self.subTest(t=t):
                self.assert_usage_error(["8", "-t", t], f"'{t}'")
                self.assert_usage_error(["8", f"--threads={t}"], f"'{t}'")
        for t in ["4097", "100000"]:
            with self.subTest(t=t):
                self.assert_usage_error(["8", "-t", t], f"thread count {t} is out of range")

    def test_bad_memory_sizes(self):
        for m in ["0", "0G", "", "abc", "1.5G", "8X", "-1", "8 G", "8GiBB", "99999999999999999999",
                  "17179869184T"]:
            with self.subTest(m=m):
                self.assert_usage_error(["8", "--memory", m], f"invalid memory size '{m}'")

    def test_control_characters_stay_out_of_messages(self):
        # Found by the fuzzer (test/fuzz/corpus/cli/newline_in_argument): a
        # quoted newline broke the one-line message.  Control characters
        # show as '?', so nothing typed can split a line or drive a terminal.
        self.assert_usage_error(["8\n9"], "invalid board size '8?9'")
        self.assert_usage_error(["8", "-e", "mi\x1b[2Jrror"], "unknown engine 'mi?[2Jrror'")
        p = run("8", "--checkpoint", "/nonexistent-nq-dir/a\nb")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertIn("'/nonexistent-nq-dir/a?b'", p.stderr)

    def test_environment_out_of_range(self):
        # The program reads OMP_NUM_THREADS itself: every value the OpenMP
        # runtime would misread (0 taken as the default, 2^32 wrapped to 0,
        # an overflow, a list's first item, junk) is refused, quoted as
        # given, with exit status 2.  libgomp may warn first on its own
        # (it reads the variable as the program loads): only the program's
        # line is checked to be one line.  LLVM's libomp (clang builds) may
        # abort as it loads on such a value, before the program runs: the
        # refusals are checked where the runtime lets the program start.
        libomp = links_libomp()
        for value in [] if libomp else ["0", "4097", "100000", "4294967296", "99999999999", "2147483648",
                      "18446744073709551617", "-1", "junk", "4,2", "8,", " 4", "4 ", "1e3",
                      "0x10"]:
            with self.subTest(value=value):
                p = subprocess.run([NQUEENS, "12", "-q"], capture_output=True, text=True,
                                   timeout=60, env=dict(os.environ, OMP_NUM_THREADS=value))
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                ours = [l for l in p.stderr.splitlines() if l.startswith("nqueens:")]
                self.assertEqual(ours, [f"nqueens: OMP_NUM_THREADS='{value}' is not a thread "
                                        "count: expected one integer from 1 to 4096 (try --help)"],
                                 p.stderr)
                others = [l for l in p.stderr.splitlines() if l and not l.startswith("nqueens:")]
                self.assertTrue(all(l.startswith("libgomp:") for l in others), p.stderr)
        # An explicit thread count does not read it; a valid value is used.
        cases = [(["-t", "2"], "5" if libomp else "junk", 2), ([], "3", 3)]
        if not libomp:  # LLVM's libomp aborts on an empty value as it loads
            cases.append(([], "", None))
        for args, env, threads in cases:
            p = subprocess.run([NQUEENS, "10", "-e", "mirror", "--json", *args],
                               capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, OMP_NUM_THREADS=env))
            self.assertEqual(p.returncode, 0, p.stderr)
            if threads:
                self.assertEqual(json.loads(p.stdout)["threads"], threads)
        # A listing runs on one thread: the variable does not matter to it.
        p = subprocess.run([NQUEENS, "6", "--solutions"], capture_output=True, text=True,
                           timeout=60, env=dict(os.environ, OMP_NUM_THREADS="4097"))
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_kernel_level_environment(self):
        # NQ_KERNEL picks the kernel level: every level this CPU runs counts
        # the same, portable always runs, and a level the CPU lacks or a
        # value naming none is refused, quoted as given, with exit status 2.
        levels = ("avx2", "avx512", "avx512icl")
        for value in ["", "portable", *levels, "avx1024", "AVX2", " avx2"]:
            with self.subTest(value=value):
                p = subprocess.run([NQUEENS, "12", "-q"], capture_output=True, text=True,
                                   timeout=60, env=dict(os.environ, NQ_KERNEL=value))
                if value in ("", "portable") or p.returncode == 0:
                    self.assertIn(value, ("", "portable", *levels))
                    self.assertEqual((p.returncode, p.stdout), (0, "14200\n"), p.stderr)
                    continue
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                reason = ("this CPU or build cannot run that kernel level"
                          if value in levels else
                          "is not a kernel level: expected portable, avx2, avx512 or avx512icl")
                sep = ":" if value in levels else ""
                self.assertEqual(p.stderr, f"nqueens: NQ_KERNEL='{value}'{sep} {reason} "
                                           "(try --help)\n")

    def test_numbers_out_of_range_name_the_range(self):
        self.assert_usage_error(["8", "--solutions", "--limit", "18446744073709551616"],
                                "invalid limit '18446744073709551616': expected an integer "
                                "from 1 to 18446744073709551615")
        self.assert_usage_error(["8", "--solutions", "--limit", "0"], "from 1 to")
        self.assert_usage_error(["8", "--solutions", "--limit", "-1"], "'-1'")
        self.assert_usage_error(["8", "-t", "99999999999"], "from 1 to 4096")
        self.assert_usage_error(["8", "--split-depth", "99999999999"], "from 1 to 8")
        self.assert_usage_error(["99999999999"], "from 1 to 32")
        # The largest limit is a limit, not an error.
        p = run("6", "--solutions", "--limit", "18446744073709551615", "--format", "columns")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), 4)

    def test_zero_threads_is_the_default(self):
        p = run("10", "-t", "0", "-e", "mirror", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreaterEqual(json.loads(p.stdout)["threads"], 1)

    def test_options_that_do_not_apply(self):
        cases = [
            (["16", "-e", "mitm", "--split-depth", "3"], "does not apply to engine mitm"),
            (["16", "--split-depth", "3"], "which auto picks"),
            (["10", "-e", "plain", "--split-depth", "2"], "does not apply to engine plain"),
            (["10", "-e", "plain", "-t", "2"], "engine plain: it runs on one thread"),
            (["8", "--solutions", "--json"], "--json applies only to counting"),
            (["8", "--solutions", "-e", "mirror"], "--engine applies only to counting"),
            (["8", "--solutions", "-t", "2"], "--threads applies only to counting"),
            (["8", "--solutions", "--split-depth", "2"], "--split-depth applies only"),
            (["8", "--solutions", "--progress"], "--progress applies only to counting"),
            (["8", "--solutions", "--checkpoint", "x.journal"], "--checkpoint applies only"),
            (["8", "--solutions", "--output", "x.txt"], "--output applies only to counting"),
            (["8", "--output", ""], "invalid output file ''"),
            (["8", "--format", "columns"], "--format applies only with --solutions"),
            (["8", "--limit", "3"], "--limit applies only with --solutions"),
        ]
        for args, mentions in cases:
            with self.subTest(args=args):
                self.assert_usage_error(args, mentions)
        # What does apply is honoured.
        p = run("10", "-e", "plain", "-t", "1", "-q")
        self.assertEqual((p.returncode, p.stdout), (0, "724\n"), p.stderr)
        p = run("6", "--solutions", "--no-progress", "--format", "columns", "-q")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), 4)

    def test_unknown_engine_and_option(self):
        self.assert_usage_error(["8", "-e", "fast"], "'fast'")
        self.assert_usage_error(["8", "--engine", "MIRROR"], "'MIRROR'")
        self.assert_usage_error(["8", "--bogus"], "--bogus")
        self.assert_usage_error(["8", "-z"], "-z")
        self.assert_usage_error(["8", "--format", "xml", "--solutions"], "'xml'")
        self.assert_usage_error(["8", "--split-depth", "9"], "split depth 9 is out of range")
        self.assert_usage_error(["4", "--split-depth", "5"], "split depth 5 exceeds")
        self.assert_usage_error(["29", "-e", "mitm"], "engine mitm cannot count N=29")
        self.assert_usage_error(["8", "--schedule", "fast"], "unknown schedule 'fast'")
        # "default" names the setting's zero value, not a schedule to ask for.
        self.assert_usage_error(["8", "--schedule", "default"], "'default'")
        self.assert_usage_error(["8", "--schedule", "tasks", "--solutions"], "--schedule")

    def test_missing_and_extra(self):
        self.assert_usage_error([], "missing board size")
        self.assert_usage_error(["-t", "2"], "missing board size")
        self.assert_usage_error(["8", "9"], "'9'")
        self.assert_usage_error(["8", "-t"], "-t")
        self.assert_usage_error(["8", "--limit", "3"], "--limit")
        self.assert_usage_error(["13", "--solutions"], "--limit")


class Counting(unittest.TestCase):
    def test_text_output(self):
        p = run("10", "-t", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("724 solutions", p.stdout)
        self.assertIn("2 threads", p.stdout)
        self.assertRegex(p.stdout, r"engine \w+")

    def test_schedules(self):
        for schedule in ("tasks", "dynamic", "guided", "static"):
            with self.subTest(schedule=schedule):
                p = run("12", "-t", "3", "--schedule", schedule, "-q")
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(p.stdout, "14200\n")

    def test_quiet(self):
        for n, total in KNOWN.items():
            p = run(str(n), "-q")
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout, f"{total}\n")

    def test_json(self):
        for engine, extra in [("plain", ["-t", "1"]), ("mirror", ["-t", "2", "--split-depth", "2"]),
                              ("auto", ["-t", "2"])]:
            p = run("12", "--json", "-e", engine, *extra)
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(p.stdout)
            self.assertEqual(doc["n"], 12)
            self.assertEqual(doc["total"], 14200)
            self.assertIsInstance(doc["subproblems"], int)
            self.assertGreaterEqual(doc["subproblems"], 1)
            self.assertIsInstance(doc["seconds"], float)
            self.assertEqual(set(doc), {"n", "engine", "threads", "split_depth", "subproblems",
                                        "units_resumed", "total", "unique", "total_decimal",
                                        "unique_decimal", "estimated_seconds", "seconds",
                                        "version"})
            self.assertEqual(doc["total_decimal"], "14200")
            # plain's single unit is not sampled: no estimate.
            estimate = doc["estimated_seconds"]
            self.assertTrue(estimate is None if engine == "plain" else estimate > 0, estimate)
            if engine != "auto":
                self.assertEqual(doc["engine"], engine)
            if doc["engine"] == "mirror":
                self.assertEqual(doc["threads"], 2)
                self.assertEqual(doc["split_depth"], 2)
                self.assertIsNone(doc["unique"])

    def test_threads_beyond_the_cpus_allowed(self):
        # Bound to one CPU, 2 threads take turns: one warning line, the
        # count exact; -t 1 there, or any -t with every CPU allowed, is quiet.
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            self.skipTest("one CPU: nothing to bind to less")
        bound = {"capture_output": True, "text": True, "timeout": 60,
                 "preexec_fn": lambda: os.sched_setaffinity(0, {cpus[0]})}
        p = subprocess.run([NQUEENS, "12", "-t", "2", "-q"], **bound)
        self.assertEqual((p.returncode, p.stdout), (0, "14200\n"), p.stderr)
        self.assertRegex(p.stderr, r"^nqueens: warning: this process runs 2 threads but may use "
                         r"only 1 of the machine's \d+ CPUs \(its CPU affinity\), so its "
                         r"threads take turns; use -t 1 or let it use more CPUs\n$")
        p = subprocess.run([NQUEENS, "12", "-t", "1", "-q"], **bound)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "14200\n", ""))
        if len(cpus) == os.cpu_count():
            p = run("12", "-t", str(2 * len(cpus)), "-q")
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "14200\n", ""))

    def test_help_and_version(self):
        p = run("--help")
        self.assertEqual(p.returncode, 0)
        for option in ["--threads", "--engine", "--split-depth", "--json", "--solutions", "--limit"]:
            self.assertIn(option, p.stdout)
        self.assertEqual(p.stderr, "")
        p = run("--version")
        self.assertEqual(p.returncode, 0)
        self.assertRegex(p.stdout, r"^nqueens \d+\.\d+\.\d+( \(git [0-9a-f]+(-dirty)?\))?\n$")


class LostOutput(unittest.TestCase):
    """Whatever was asked, a result that cannot be written is a failure."""
    CASES = [["8"], ["8", "-q"], ["8", "--json"], ["6", "--solutions"], ["--help"], ["--version"]]

    def assert_lost(self, args, stdout, preexec, reason, prefix=(), env=None):
        p = subprocess.run([*prefix, NQUEENS, *args], stdout=stdout, stderr=subprocess.PIPE,
                           text=True, timeout=60, preexec_fn=preexec, env=env)
        self.assertEqual(p.returncode, 1, f"{args}: {p.stderr!r}")
        self.assertEqual(p.stderr, f"nqueens: cannot write to standard output: {reason}\n",
                         args)

    @unittest.skipUnless(shutil.which("stdbuf"), "needs stdbuf (coreutils)")
    def test_unbuffered_stdout(self):
        # Unbuffered or line-buffered, stdout fails inside printf, not at
        # the flush: the reason is kept all the same (MPICH's MPI_Init
        # makes nqueens-mpi's stdout unbuffered).  stdbuf preloads a
        # library (STDBUF_ENV).
        for mode in ("-o0", "-oL"):
            for args in self.CASES:
                with self.subTest(mode=mode, args=args), open("/dev/full", "w") as full:
                    self.assert_lost(args, full, None, "No space left on device",
                                     ("stdbuf", mode), STDBUF_ENV)

    def test_full_disk(self):
        for args in self.CASES:
            with self.subTest(args=args), open("/dev/full", "w") as full:
                self.assert_lost(args, full, None, "No space left on device")

    def test_closed_stdout(self):
        for args in self.CASES:
            with self.subTest(args=args):
                self.assert_lost(args, None, lambda: os.close(1), "Bad file descriptor")

    def test_long_listing_stops(self):
        # A listing stops at the first failed write instead of running on.
        with open("/dev/full", "w") as full:
            self.assert_lost(["20", "--solutions", "--limit", "100000000"], full, None,
                             "No space left on device")


class MemoryCheck(unittest.TestCase):
    """A count whose engine would need more memory than is available is
    refused before it starts (exit 2, one line: the estimate, the memory
    available, a thread count that fits).  NQ_MEMORY_AVAILABLE stands in for
    the machine's figure."""

    def run_with(self, available, *args):
        return subprocess.run([NQUEENS, *args], capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, NQ_MEMORY_AVAILABLE=str(available)))

    def assert_refused(self, p, *mentions):
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        for m in mentions:
            self.assertIn(m, p.stderr)

    def test_too_many_threads_for_mitm(self):
        p = self.run_with(10**9, "23", "-e", "mitm", "-t", "4096")
        self.assert_refused(p, "nqueens: engine mitm needs about ", "for N=23 on 4096 threads",
                            "more than the 1.0 GB available (NQ_MEMORY_AVAILABLE)")
        fit = re.search(r"(\d+) threads? would fit \(-t (\d+)\)$", p.stderr.strip())
        if fit:  # one thread more than the advice is refused too
            self.assertEqual(fit.group(1), fit.group(2))
            self.assert_refused(self.run_with(10**9, "23", "-e", "mitm", "-t",
                                              str(int(fit.group(1)) + 1)), "needs about")
        else:
            self.assertIn("it does not fit even on 1 thread", p.stderr)

    def test_nothing_fits_and_enough(self):
        p = self.run_with(1, "16", "-e", "mitm", "-t", "2")
        self.assert_refused(p, "for N=16 on 2 threads", "it does not fit even on 1 thread")
        p = self.run_with(10**15, "16", "-e", "mitm", "-t", "2", "-q")
        self.assertEqual((p.returncode, p.stdout), (0, "14772512\n"), p.stderr)
        # Engines without a memory estimate are not held back.
        p = self.run_with(1, "12", "-e", "mirror", "-t", "2", "-q")
        self.assertEqual((p.returncode, p.stdout), (0, "14200\n"), p.stderr)

    def test_memory_budget(self):
        # Past the quarter store a budget sets the batches, and so the
        # estimate checked: N = 28 on 2 threads fits 4.5 GiB by default, and
        # a budget of 64 GiB (longer batches) does not; the advice is the
        # budget that fits, not fewer threads.
        gib = 1 << 30
        p = self.run_with(9 * gib // 2, "28", "-e", "mitm", "-t", "2", "--memory", "64G")
        self.assert_refused(p, "for N=28 on 2 threads", "more than the 4.8 GB available",
                            "a smaller budget would fit (--memory 4608M)")
        # Boards with a store ignore the budget: a budget of one byte counts.
        for m in ["1", "8GiB", "4096m"]:
            with self.subTest(m=m):
                p = self.run_with(10**15, "16", "-e", "mitm", "-t", "2", "-q", "--memory", m)
                self.assertEqual((p.returncode, p.stdout), (0, "14772512\n"), p.stderr)


class OutputFile(unittest.TestCase):
    """--output FILE: the result the run would print, written whole (through a
    temporary file renamed over FILE) or not at all, and a failure to write
    it is exit status 1 with one line naming the file."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="nq_out_")
        self.path = os.path.join(self.tmp.name, "result")

    def tearDown(self):
        self.tmp.cleanup()

    def read(self):
        with open(self.path) as f:
            return f.read()

    def test_written_instead_of_stdout(self):
        for extra, check in ((["-q"], lambda text: self.assertEqual(text, "724\n")),
                             (["--json"], lambda text: self.assertEqual(
                                 json.loads(text)["total"], 724)),
                             ([], lambda text: self.assertRegex(
                                 text, r"^N=10: 724 solutions\nengine \w+, .*\n$"))):
            with self.subTest(extra=extra):
                p = run("10", *extra, "--output", self.path)
                self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))
                check(self.read())
                # Only the result is left: no temporary file beside it.
                self.assertEqual(os.listdir(self.tmp.name), ["result"])

    def test_stdout_lost_result_kept(self):
        with open("/dev/full", "w") as full:
            p = subprocess.run([NQUEENS, "11", "-q", "--output", self.path], stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertEqual(self.read(), "2680\n")

    def test_cannot_write(self):
        cases = [("/dev/full", "No space left on device"),
                 (os.path.join(self.tmp.name, "missing", "result"), "No such file or directory")]
        for path, reason in cases:
            with self.subTest(path=path):
                p = run("10", "--output", path)
                self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
                self.assertEqual(p.stderr,
                                 f"nqueens: cannot write the result to '{path}': {reason}\n")
        # Written through an unbuffered stdout, the write fails inside
        # printf: the reason is kept (see LostOutput.test_unbuffered_stdout).
        if shutil.which("stdbuf"):
            p = subprocess.run(["stdbuf", "-o0", NQUEENS, "10", "--output", "/dev/full"],
                               capture_output=True, text=True, timeout=60, env=STDBUF_ENV)
            self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
            self.assertEqual(p.stderr, "nqueens: cannot write the result to '/dev/full': "
                             "No space left on device\n")

    def test_failed_write_leaves_the_old_result(self):
        # A file size limit makes the write fail after the count (the check
        # before it creates an empty file only): the old result stays whole.
        if links_libomp():
            # LLVM's libomp sizes a 1 KiB registration file as it loads,
            # more than a result: the limit would stop it first.
            self.skipTest("the limit cannot fall between libomp's file and the result")
        with open(self.path, "w") as f:
            f.write("old result\n")

        def limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))
        p = subprocess.run([NQUEENS, "10", "--json", "--output", self.path], capture_output=True,
                           text=True, timeout=60, preexec_fn=limit)
        self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
        self.assertEqual(p.stderr, f"nqueens: cannot write the result to '{self.path}': "
                         "File too large\n")
        self.assertEqual(self.read(), "old result\n")
        self.assertEqual(os.listdir(self.tmp.name), ["result"])

    def test_device_written_in_place(self):
        # /dev/stdout is written through, not replaced by a file.
        out = os.path.join(self.tmp.name, "stdout")
        with open(out, "w") as f:
            f.write("before\n")
        with open(out, "a") as f:
            p = subprocess.run([NQUEENS, "8", "-q", "--output", "/dev/stdout"], stdout=f,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        with open(out) as f:
            self.assertEqual(f.read(), "before\n92\n")


class Solutions(unittest.TestCase):
    def boards(self, n, *extra):
        p = run(str(n), "--solutions", *extra)
        self.assertEqual(p.returncode, 0, p.stderr)
        blocks = [b for b in p.stdout.split("\n\n") if b.strip()]
        result = []
        for block in blocks:
            rows = block.strip().split("\n")
            self.assertEqual(len(rows), n)
            cols = []
            for row in rows:
                cells = row.split(" ")
                self.assertEqual(len(cells), n)
                self.assertEqual(cells.count("Q"), 1)
                self.assertEqual(cells.count("."), n - 1)
                cols.append(cells.index("Q"))
            result.append(tuple(cols))
        return result

    def test_eight_queens_boards(self):
        boards = self.boards(8)
        self.assertEqual(len(boards), 92)
        self.assertEqual(len(set(boards)), 92)
        for b in boards:
            self.assertTrue(valid(b), b)

    def test_six_queens_boards(self):
        boards = self.boards(6)
        self.assertEqual(len(set(boards)), 4)
        self.assertTrue(all(valid(b) for b in boards))

    def test_columns_format_and_limit(self):
        p = run("10", "--solutions", "--format", "columns")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 724)
        sols = [tuple(map(int, l.split())) for l in lines]
        self.assertEqual(len(set(sols)), 724)
        self.assertTrue(all(valid(s) for s in sols))
        p = run("20", "--solutions", "--format", "columns", "--limit", "3")
        self.assertEqual(p.returncode, 0, p.stderr)
        sols = [tuple(map(int, l.split())) for l in p.stdout.splitlines()]
        self.assertEqual(len(sols), 3)
        self.assertTrue(all(len(s) == 20 and valid(s) for s in sols))


if __name__ == "__main__":
    NQUEENS = sys.argv.pop(1)
    unittest.main(verbosity=2)
