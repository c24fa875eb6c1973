#!/usr/bin/env python3
"""CLI tests for long runs: --checkpoint, resume, interruption, progress.

Run by meson as `python3 test_checkpoint.py PATH_TO_NQUEENS`.  Runs are
interrupted at random moments (SIGINT, SIGTERM, SIGHUP, SIGKILL) and
resumed; the final total must be exact every time.  Damaged, foreign or
locked journals, and paths that cannot hold one, must be refused at once
with exit status 2, one line naming the file, and the file left
byte-for-byte unchanged; a journal that cannot be written mid-run (a file
size limit stands in for a full disk) exits 1.  Progress is checked on a
pseudo-terminal and on a pipe.  The seed is printed so that a failure can
be replayed (NQ_TEST_SEED=...).
"""
import os
import pty
import random
import re
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import zlib

from proc_util import wait_stopped

NQUEENS = None
SEED = int(os.environ.get("NQ_TEST_SEED", random.randrange(1 << 30)))
RNG = random.Random(SEED)

# N=16 with split depth 4: 9844 subproblems in 3282 chunks, a few seconds
# on two cores, so a random moment lands mid-run.
LONG = ["16", "-e", "mirror", "--split-depth", "4", "-t", "2"]
LONG_TOTAL = 14772512
LONG_CHUNKS = 3282
KNOWN = {10: 724, 11: 2680, 12: 14200, 13: 73712, 16: LONG_TOTAL}
RECORD = 64
HEADER = 64


def run(*args, timeout=120):
    return subprocess.run([NQUEENS, *args], capture_output=True, text=True, timeout=timeout)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def total_of(stdout):
    m = re.search(r"N=\d+: (\d+) solutions", stdout)
    return int(m.group(1)) if m else None


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="nq_ckpt_")
        self.journal = os.path.join(self.tmp.name, "run.journal")

    def tearDown(self):
        self.tmp.cleanup()

    def start(self, args):
        return subprocess.Popen([NQUEENS, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    def wait_for_journal(self, proc):
        """Waits until the journal exists (it is created before any work)."""
        deadline = time.monotonic() + 30
        while not os.path.exists(self.journal) and proc.poll() is None:
            self.assertLess(time.monotonic(), deadline, "journal never appeared")
            time.sleep(0.005)

    def records(self):
        try:
            return max(0, (os.path.getsize(self.journal) - RECORD) // RECORD)
        except OSError:
            return 0

    def wait_for_progress(self, proc):
        """Waits until a random share of the remaining chunks is journalled,
        so the signal lands mid-run however fast the machine is."""
        self.wait_for_journal(proc)
        have = self.records()
        target = have + RNG.randint(1, max(1, (LONG_CHUNKS - have) * 6 // 10))
        deadline = time.monotonic() + 60
        while self.records() < target and proc.poll() is None:
            self.assertLess(time.monotonic(), deadline, "the run made no progress")
            time.sleep(0.002)

    def finish(self, args, total):
        p = run(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(total_of(p.stdout), total, p.stdout)
        return p


class Interrupt(Base):
    def interrupt_chain(self, signals):
        """Starts the long run, stops it with each signal in turn at a random
        moment, resuming in between, then lets it finish: exact total."""
        args = [*LONG, "--checkpoint", self.journal]
        landed = 0
        for sig in signals:
            proc = self.start(args)
            self.wait_for_progress(proc)
            if proc.poll() is not None:
                proc.communicate()
                break  # finished before the signal: nothing left to interrupt
            sent = time.monotonic()
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=60)
            stopped = time.monotonic() - sent
            if proc.returncode == 0:
                break  # the signal raced the end of the run
            landed += 1
            if sig == signal.SIGKILL:
                self.assertEqual(proc.returncode, -signal.SIGKILL)
                continue
            self.assertEqual(proc.returncode, 128 + sig, err)
            self.assertEqual(out, "", "an interrupted run prints no result")
            self.assertLess(stopped, 2.0, "the run should stop promptly")
            lines = err.splitlines()
            self.assertEqual(len(lines), 1, err)
            self.assertIn("resume with: " + " ".join([NQUEENS, *args]), lines[0])
        self.assertGreater(landed, 0, f"no signal landed mid-run (seed {SEED})")
        p = self.finish(args, LONG_TOTAL)
        self.assertRegex(p.stdout, r"\(\d+ resumed from the journal\)")

    def test_sigint_sigterm_sighup_resume(self):
        # SIGHUP (a closed terminal or SSH session) stops a run as SIGTERM does.
        self.interrupt_chain([signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGINT,
                              signal.SIGHUP])

    def test_sigkill_resume(self):
        self.interrupt_chain([signal.SIGKILL, signal.SIGKILL, signal.SIGKILL])

    def test_second_signal_exits_at_once(self):
        args = [*LONG, "--checkpoint", self.journal]
        proc = self.start(args)
        self.wait_for_progress(proc)
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        self.assertIn(proc.returncode, (0, 130))
        # Whatever the second signal cut short, the journal resumes exactly.
        self.finish(args, LONG_TOTAL)

    def test_no_checkpoint_signal_exits(self):
        proc = self.start(LONG)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=10)
        self.assertIn(proc.returncode, (0, 143))


class Resume(Base):
    def test_torn_last_record_every_offset(self):
        args = ["11", "-e", "mirror", "--split-depth", "3", "--checkpoint", self.journal]
        self.finish(args, KNOWN[11])
        full = read(self.journal)
        body = full[:-RECORD]  # drop the completion record: the last is a chunk
        for cut in range(len(body) - RECORD, len(body)):
            with open(self.journal, "wb") as f:
                f.write(body[:cut])
            p = self.finish(args, KNOWN[11])
            notes = [l for l in p.stderr.splitlines() if "torn" in l]
            self.assertEqual(len(notes), 1 if cut % RECORD else 0, p.stderr)
            if notes:
                self.assertIn(self.journal, notes[0])

    def test_completed_journal_answers_at_once(self):
        args = ["12", "-e", "mirror", "--checkpoint", self.journal]
        self.finish(args, KNOWN[12])
        before = read(self.journal)
        p = self.finish(args, KNOWN[12])
        self.assertIn("resumed from the journal", p.stdout)
        self.assertEqual(read(self.journal), before)
        # Resuming with another thread count is the same run.
        self.finish(["12", "-e", "mirror", "-t", "1", "--checkpoint", self.journal], KNOWN[12])

    def test_every_engine_resumes_a_cut_journal(self):
        # The journal works on unit indices alone, so a crash that keeps only
        # some records resumes exactly whatever the engine.
        for engine in ["mirror", "full", "mitm"]:
            with self.subTest(engine=engine):
                args = ["13", "-e", engine, "-t", "2", "--checkpoint", self.journal]
                self.finish(args, KNOWN[13])
                data = read(self.journal)
                records = (len(data) - HEADER) // RECORD
                self.assertGreater(records, 2)
                # Keep the header and the first half of the chunk records (the DONE record goes too).
                with open(self.journal, "wb") as f:
                    f.write(data[:HEADER + (records // 2) * RECORD])
                p = self.finish(args, KNOWN[13])
                self.assertIn("resumed from the journal", p.stdout)
                os.unlink(self.journal)

    def test_sparse_zero_tail(self):
        # A hole of 4 GiB after the records (what a crash of a file system
        # that extends before it writes can leave) is a torn tail, found
        # without reading the hole; a valid record beyond a hole is damage.
        args = ["12", "-e", "mirror", "--checkpoint", self.journal]
        self.finish(args, KNOWN[12])
        data = read(self.journal)
        body = data[:-RECORD]  # the last chunk record stays, the completion goes
        with open(self.journal, "wb") as f:
            f.write(body)
        os.truncate(self.journal, len(body) + (4 << 30))
        p = self.finish(args, KNOWN[12])
        self.assertIn("torn", p.stderr)
        self.assertEqual(os.path.getsize(self.journal) % RECORD, 0)
        with open(self.journal, "wb") as f:
            f.write(body)
        os.truncate(self.journal, len(body) + (1 << 30))
        with open(self.journal, "ab") as f:
            f.write(body[-RECORD:])
        p = run(*args)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("damaged", p.stderr)

    def test_unwritable_path_fails_before_work(self):
        for bad in [os.path.join(self.tmp.name, "no", "such", "dir", "j"),
                    os.path.join(self.journal, "x")]:
            open(self.journal, "w").close()
            t = time.monotonic()
            p = run("18", "--checkpoint", bad)  # hours of work if it started
            self.assertLess(time.monotonic() - t, 5)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(p.stdout, "")
            self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
            self.assertIn(bad, p.stderr)
            os.unlink(self.journal)


class Failures(Base):
    def test_journal_write_fails_mid_run(self):
        """A journal the disk refuses in the middle of a run is the machine's
        failure: exit 1, one line naming the file; what was written before
        resumes exactly.  A file size limit, set on the running process
        (nqueens ignores SIGXFSZ itself), stands in for a full disk; it is
        set once records arrive, as LLVM's OpenMP runtime sizes a shared
        memory file when its threads first start."""
        args = [*LONG, "--checkpoint", self.journal]
        proc = self.start(args)
        self.wait_for_progress(proc)
        # Stopped while the limit is taken and set: a running count flushes
        # its records as it goes, and a flush of more than ten in between
        # would leave the file past the limit, so that nothing is torn.
        proc.send_signal(signal.SIGSTOP)
        wait_stopped(proc.pid)
        limit = os.path.getsize(self.journal) + 10 * RECORD + RECORD // 2
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
        proc.send_signal(signal.SIGCONT)
        out, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 1, err)
        self.assertEqual(out, "")
        self.assertEqual(err, f"nqueens: cannot write to journal '{self.journal}': "
                              "File too large\n")
        p = self.finish(args, LONG_TOTAL)
        self.assertIn("torn", p.stderr)
        self.assertRegex(p.stdout, r"\(\d+ resumed from the journal\)")

    def test_second_run_refused(self):
        """While a run holds the journal, a second one is refused at once,
        naming the holder, and the journal is left as it was."""
        args = [*LONG, "--checkpoint", self.journal]
        first = self.start(args)
        self.wait_for_progress(first)
        first.send_signal(signal.SIGSTOP)  # so the journal holds still
        try:
            wait_stopped(first.pid)
            before = read(self.journal)
            t = time.monotonic()
            p = run(*args)
            self.assertLess(time.monotonic() - t, 5)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(p.stdout, "")
            self.assertEqual(p.stderr, f"nqueens: journal '{self.journal}' is in use by another "
                             f"run (process {first.pid}); wait for it to finish or stop it\n")
            self.assertEqual(read(self.journal), before)
        finally:
            first.send_signal(signal.SIGCONT)
        out, err = first.communicate(timeout=120)
        self.assertEqual(first.returncode, 0, err)
        self.assertEqual(total_of(out), LONG_TOTAL)


class Refuse(Base):
    def assert_refused(self, path, args, mentions):
        before = read(path) if os.path.isfile(path) else None
        p = run(*args, "--checkpoint", path)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, "")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(path, lines[0])
        self.assertIn(mentions, lines[0])
        if before is not None:
            self.assertEqual(read(path), before, "refused journal was changed")

    def make(self, args):
        self.finish([*args, "--checkpoint", self.journal], KNOWN[int(args[0])])
        return bytearray(read(self.journal))

    def test_flipped_byte_in_middle_record(self):
        data = self.make(["12", "-e", "mirror", "--split-depth", "3"])
        records = len(data) // RECORD - 1
        for _ in range(5):
            copy = bytearray(data)
            index = RNG.randrange(1, records - 1)  # never the last record
            copy[index * RECORD + RNG.randrange(RECORD)] ^= 1 << RNG.randrange(8)
            with open(self.journal, "wb") as f:
                f.write(copy)
            self.assert_refused(self.journal, ["12", "-e", "mirror", "--split-depth", "3"], "damaged")

    def test_finished_journal_rechecked(self):
        # A finished journal answers without counting, so its records are
        # checked against each other first: the chunk records must add up
        # to the completion (DONE) record and every chunk must have one.
        # Each damage below keeps every checksum valid (recomputed, or a
        # whole record dropped), so only those checks can find it.
        args = ["12", "-e", "mirror", "--split-depth", "3"]
        data = bytes(self.make(args))
        chunks = len(data) // RECORD - 2  # no header, no DONE
        self.assertGreater(chunks, 3)
        self.assertEqual(data[-RECORD:][:4], b"DONE")

        def resealed(buf, index):
            """buf with record `index` (0: the first after the header)
            given a valid checksum again."""
            out = bytearray(buf)
            at = HEADER + index * RECORD
            out[at + 60:at + 64] = zlib.crc32(bytes(out[at:at + 60])).to_bytes(4, "little")
            return bytes(out)

        index = RNG.randrange(chunks)
        flipped = bytearray(data)
        flipped[HEADER + index * RECORD + 16 + RNG.randrange(4)] ^= 1 << RNG.randrange(8)
        dropped = HEADER + RNG.randrange(chunks) * RECORD
        cases = {
            "a chunk's total changed": (resealed(flipped, index), "differs from the sum"),
            "a chunk record dropped": (data[:dropped] + data[dropped + RECORD:],
                                       "has a completion record but no record of chunk"),
        }
        for name, (damaged, mention) in cases.items():
            with self.subTest(case=name, index=index):
                with open(self.journal, "wb") as f:
                    f.write(damaged)
                self.assert_refused(self.journal, args, mention)

    def test_chunk_recorded_twice_with_other_counts(self):
        # A chunk checked by a later run (--verify) has a second record with
        # the same counts; a second record whose counts differ (checksum
        # recomputed) is damage, finished journal or not.
        args = ["12", "-e", "mirror", "--split-depth", "3", "-t", "2"]
        data = self.make(args)
        with open(self.journal, "wb") as f:  # drop DONE: the next run checks every chunk
            f.write(data[:-RECORD])
        self.finish([*args, "--verify", "1", "--checkpoint", self.journal], KNOWN[12])
        data = read(self.journal)
        records = [data[at:at + RECORD] for at in range(HEADER, len(data), RECORD)]
        chunk_of = [int.from_bytes(r[8:16], "little") for r in records]
        seen = set()
        second = next(i for i, c in enumerate(chunk_of)
                      if records[i][:4] == b"CHNK" and (c in seen or seen.add(c)))
        at = HEADER + second * RECORD
        copy = bytearray(data)
        copy[at + 16] ^= 1
        copy[at + 60:at + 64] = zlib.crc32(bytes(copy[at:at + 60])).to_bytes(4, "little")
        for name, damaged in (("finished", bytes(copy)), ("unfinished", bytes(copy[:-RECORD]))):
            with self.subTest(journal=name):
                with open(self.journal, "wb") as f:
                    f.write(damaged)
                self.assert_refused(self.journal, args, "has two records with different counts")

    def test_other_runs(self):
        self.make(["10", "-e", "mirror"])
        self.assert_refused(self.journal, ["11"], "N=10")
        self.assert_refused(self.journal, ["10", "-e", "plain"], "engine")
        self.assert_refused(self.journal, ["10", "--split-depth", "4"], "split depth")

    def test_records_of_another_job(self):
        # Journals of two jobs (mirror N=12 and N=11, same engine and split
        # depth): the first one's header and records followed by records of
        # the second, anywhere (mid-file and as the last record, which is not
        # taken for a torn tail), or the second's records alone under the
        # first one's header.  Every record's checksum is valid; each is
        # refused as another job's, and the file is left as it was.
        a_args = ["12", "-e", "mirror", "--split-depth", "3"]
        a = bytes(self.make(a_args))
        other = os.path.join(self.tmp.name, "other.journal")
        self.finish(["11", "-e", "mirror", "--split-depth", "3", "--checkpoint", other], KNOWN[11])
        b = read(other)
        a_chunks, b_chunks = a[RECORD:-RECORD], b[RECORD:-RECORD]  # no header, no DONE
        cases = {
            "another job's record in the middle": a[:2 * RECORD] + b_chunks[:RECORD]
                                                  + a[2 * RECORD:-RECORD],
            "another job's record last": a[:-RECORD] + b_chunks[-RECORD:],
            "another job's records only": a[:RECORD] + b_chunks,
            "journals concatenated": a + b[RECORD:],
        }
        self.assertTrue(a_chunks and b_chunks)
        for name, data in cases.items():
            with self.subTest(case=name):
                with open(self.journal, "wb") as f:
                    f.write(data)
                self.assert_refused(self.journal, a_args, "holds a record of another job")

    def test_older_format_refused(self):
        # A version-2 journal (records without the job identity): refused
        # with the reason and what to do, exit 2, untouched.
        data = self.make(["10", "-e", "mirror"])
        data[8:12] = (2).to_bytes(4, "little")
        data[60:64] = zlib.crc32(bytes(data[:60])).to_bytes(4, "little")
        with open(self.journal, "wb") as f:
            f.write(data)
        self.assert_refused(self.journal, ["10", "-e", "mirror"],
                            "has format version 2, written by an older nqueens; this build reads "
                            "version 3")

    def test_not_journals(self):
        open(self.journal, "wb").close()
        self.assert_refused(self.journal, ["10"], "empty")
        with open(self.journal, "wb") as f:
            f.write(RNG.randbytes(RNG.randrange(1, 5000)))
        self.assert_refused(self.journal, ["10"], "not a checkpoint journal")

    def test_paths_that_are_not_files(self):
        # Refused at once, saying what the path is; a FIFO must not block.
        fifo = os.path.join(self.tmp.name, "fifo")
        os.mkfifo(fifo)
        dangling = os.path.join(self.tmp.name, "dangling")
        os.symlink("gone/journal", dangling)
        cases = [(self.tmp.name, "is a directory, not a regular file"),
                 (fifo, "is a FIFO (named pipe), not a regular file"),
                 ("/dev/null", "is a character device, not a regular file"),
                 (dangling, "is a symbolic link to 'gone/journal', which does not exist")]
        if os.path.exists("/proc/version"):
            cases.append(("/proc/version", "is a file of /proc"))
        for path, mentions in cases:
            with self.subTest(path=path):
                t = time.monotonic()
                self.assert_refused(path, ["18"], mentions)
                self.assertLess(time.monotonic() - t, 5)

    def test_long_names(self):
        # The longest name the file system allows works (the temporary name
        # beside it is cut to fit); one longer is refused as too long.
        longest = os.pathconf(self.tmp.name, "PC_NAME_MAX")
        path = os.path.join(self.tmp.name, "j" * longest)
        self.finish(["10", "--checkpoint", path], KNOWN[10])
        self.assertEqual(os.listdir(self.tmp.name), ["j" * longest])
        p = run("10", "--checkpoint", path + "j")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertIn(f"a name in the path is too long ({longest + 1} bytes", p.stderr)


class Progress(Base):
    PATTERN = (r"(?:\[[#.]+\] )?(?P<pct>\d+\.\d)%, ETA (\d+:\d\d|--), elapsed \d+:\d\d, "
               r"(?P<done>\d+)/(?P<total>\d+) units"
               r"(?P<rate>, \d+(?:\.\d+)? (?:[kMGTPEZY] )?solutions/s)?")

    def on_pty(self, args):
        master, slave = pty.openpty()
        proc = subprocess.Popen([NQUEENS, *args], stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        seen = b""
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            self.assertTrue(ready, "no progress output")
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
        out = proc.stdout.read().decode()
        proc.wait()
        return proc.returncode, out, seen.decode()

    def test_terminal_redraws_to_100(self):
        code, out, err = self.on_pty(["16", "-e", "mirror", "--split-depth", "4", "-t", "1"])  # a few seconds
        self.assertEqual(code, 0)
        self.assertEqual(total_of(out), LONG_TOTAL)
        frames = [f for f in err.replace("\r\n", "\n").split("\r\x1b[K") if f]
        self.assertGreater(len(frames), 1, err)
        last = None
        for frame in frames:
            m = re.fullmatch(self.PATTERN + r"\n?", frame)
            self.assertIsNotNone(m, repr(frame))
            done, total = int(m.group("done")), int(m.group("total"))
            self.assertEqual(total, 9844)
            if last is not None:
                self.assertGreaterEqual(done, last)
            last = done
        self.assertIn("100.0%, ETA 0:00, ", frames[-1])
        self.assertIn("9844/9844 units", frames[-1])
        self.assertTrue(frames[-1].endswith("\n"))

    def test_no_progress_and_quiet_on_terminal(self):
        for flag in ["--no-progress", "-q"]:
            code, out, err = self.on_pty(["14", flag])
            self.assertEqual(code, 0)
            self.assertEqual(err, "")

    def test_progress_to_pipe(self):
        p = run("15", "-e", "mirror", "--split-depth", "4", "--progress", "--checkpoint", self.journal)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stderr.splitlines()
        self.assertTrue(lines)
        for line in lines:
            self.assertRegex(line, r"^progress: " + self.PATTERN + "$")
            # Without a terminal's width every piece is there, the rate too.
            self.assertIn(" solutions/s", line)
        self.assertIn("100.0%, ETA 0:00, ", lines[-1])
        self.assertIn("6990/6990 units", lines[-1])
        self.assertNotIn("\r", p.stderr)
        # Without --progress a pipe gets none.
        self.assertEqual(run("12").stderr, "")

    def test_help(self):
        p = run("--help")
        for option in ["--progress", "--no-progress", "--checkpoint FILE"]:
            self.assertIn(option, p.stdout)


if __name__ == "__main__":
    NQUEENS = sys.argv.pop(1)
    print(f"random seed {SEED} (replay with NQ_TEST_SEED={SEED})", file=sys.stderr)
    unittest.main(verbosity=2)
