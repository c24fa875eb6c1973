#!/usr/bin/env python3
"""The duration estimate of `nqueens` against the measured duration.

Run by meson as `python3 test_estimate.py PATH_TO_NQUEENS`, alone (not
beside other tests), since both figures come from the same run on this
machine and a burst of other load during the short timed sample would
skew one and not the other.  No figure here depends on the machine's speed:
each estimate is compared with the time the same run took.

* N = 16..19 (engine auto: mitm), and full and mirror at N = 16: the
  estimate carried by --json is within FACTOR of the run's seconds.  A
  comparison out of range is run once more before it fails (load on a
  shared machine can hit the sample and miss the run).
* A count of days is announced on stderr before it starts, as a lower bound
  while the units timed for the estimate are still running, and the
  progress line on a terminal shows it.  N=23 with `full` on one thread:
  its units take tens of seconds, so the lower bound comes first on any
  machine up to dozens of times faster than a laptop.
* N = 28 with mitm on two threads, whose units take from half a minute to
  a quarter of an hour: the estimate extrapolated from how far the sample's
  units are comes before any of them ends, the progress line then has an
  ETA, and the process stays under 4 GiB meanwhile.
"""
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
import unittest

NQUEENS = None
FACTOR = 3.0


def counted(*args):
    p = subprocess.run([NQUEENS, *args, "--json"], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    return json.loads(p.stdout)


class Accuracy(unittest.TestCase):
    def check(self, args):
        for attempt in (1, 2):
            doc = counted(*args)
            estimate, seconds = doc["estimated_seconds"], doc["seconds"]
            self.assertIsNotNone(estimate, args)
            ratio = estimate / seconds
            print(f"  {' '.join(args)}: {doc['engine']}, estimated {estimate:.3f} s, "
                  f"took {seconds:.3f} s (x{ratio:.2f})", file=sys.stderr)
            if 1 / FACTOR <= ratio <= FACTOR:
                return
        self.fail(f"{args}: estimated {estimate:.3f} s, took {seconds:.3f} s: more than "
                  f"{FACTOR}x apart twice")

    def test_auto_16_to_19(self):
        for n in range(16, 20):
            with self.subTest(n=n):
                self.check([str(n)])

    def test_full_and_mirror(self):
        self.check(["16", "-e", "full"])
        self.check(["16", "-e", "mirror", "--split-depth", "4"])

    def test_no_estimate_for_a_completed_journal(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            journal = os.path.join(tmp, "j")
            self.assertIsNotNone(counted("12", "--checkpoint", journal)["estimated_seconds"])
            self.assertIsNone(counted("12", "--checkpoint", journal)["estimated_seconds"])


class Announcement(unittest.TestCase):
    ARGS = ["23", "-e", "full", "-t", "1"]
    LINE = (r"nqueens: this count is expected to take at least [\d.]+ (hours|days) \(engine "
            r"full, 1 thread, 18410 subproblems; the subproblems timed to estimate it are still "
            r"running\)")

    def test_stderr_before_the_count(self):
        proc = subprocess.Popen([NQUEENS, *self.ARGS], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            line = proc.stderr.readline()  # blocks until the announcement
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=60)
        self.assertRegex(line, "^" + self.LINE + "\n$")
        self.assertEqual(proc.returncode, 130)

    def test_progress_line_on_a_terminal(self):
        master, slave = pty.openpty()
        proc = subprocess.Popen([NQUEENS, *self.ARGS], stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        seen, deadline = "", time.monotonic() + 120
        try:
            while "in all" not in seen.split("\r\x1b[K")[-1] and time.monotonic() < deadline:
                ready, _, _ = select.select([master], [], [], 1)
                if ready:
                    seen += os.read(master, 4096).decode()
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
            os.close(master)
        # Progress is drawn in place from the start; the announcement ends
        # the line being drawn, and the frames after it show the estimate.
        lines = seen.replace("\r\n", "\n").split("\n")
        said = [l for l in lines if l.startswith("nqueens:")]
        self.assertEqual(len(said), 1, seen)
        self.assertRegex(said[0], "^" + self.LINE + "$")
        frame = lines[-1].split("\r\x1b[K")[-1]
        self.assertRegex(frame, r"^(\[\.+\] )?0\.0%, ETA --, elapsed \d+:\d\d, "
                         r"expected over [\d.]+ (hours|days) in all(, 0/18410 units)?")


def peak_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


class Extrapolation(unittest.TestCase):
    ARGS = ["28", "-e", "mitm", "-t", "2", "--progress"]
    SAID = (r"nqueens: this count is expected to take about [\d.]+ (days|years) \(engine mitm, "
            r"2 threads, 10034104 subproblems; extrapolated from how far the subproblems timed "
            r"to estimate it are\)")
    LIMIT = 120  # a guard against a hang (3 s on a 2-core Zen 5), not a speed requirement

    def test_eta_before_a_unit_ends(self):
        proc = subprocess.Popen([NQUEENS, *self.ARGS], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        start, said, frame, peak = time.monotonic(), None, None, 0
        try:
            for line in proc.stderr:
                peak = max(peak, peak_kib(proc.pid))
                if said is None and "extrapolated" in line:
                    said = line
                    print(f"  extrapolated after {time.monotonic() - start:.1f} s: {line.strip()}",
                          file=sys.stderr)
                elif said is not None and line.startswith("progress:"):
                    frame = line
                    break
                if time.monotonic() - start > self.LIMIT:
                    break
            peak = max(peak, peak_kib(proc.pid))
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=120)
        self.assertIsNotNone(said, "no extrapolated estimate")
        self.assertRegex(said, "^" + self.SAID + "\n$")
        self.assertIsNotNone(frame, "no progress line after it")
        self.assertRegex(frame, r"^progress: 0\.0%, ETA \d+:\d\d:\d\d, .*expected [\d.]+ "
                         r"(days|years) in all, 0/10034104 units")
        self.assertLess(peak, 4 << 20, f"peak {peak} KiB")
        self.assertEqual(proc.returncode, 130)


if __name__ == "__main__":
    NQUEENS = sys.argv.pop(1)
    unittest.main(verbosity=2)
