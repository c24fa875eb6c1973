#!/usr/bin/env python3
"""The progress line on a terminal: `nqueens` run with its stderr on a
pseudo-terminal 40 and 120 columns wide.

Run by meson as `python3 test_progress_pty.py PATH_TO_NQUEENS`.  Every
redraw (what follows each carriage return) must be shorter than the
terminal, so that erase-line, which clears one row, leaves nothing of it
behind; at 120 columns the line carries a bar and the fraction, at 40 it
keeps the fraction; a one-unit job (plain) says "one unit" and never shows
a fraction.  The count itself must still be right and on stdout.  Nothing
here depends on how fast the machine is: the final redraw always comes.
"""
import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import unittest

NQUEENS = None
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def run_on_terminal(columns, *args):
    """Runs nqueens with stderr on a pty of `columns` columns; returns
    (exit status, stdout, what the terminal received)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    proc = subprocess.Popen([NQUEENS, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=slave, env=env)
    os.close(slave)
    received = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the program closed the terminal
            break
        if not chunk:
            break
        received += chunk
    out, _ = proc.communicate(timeout=120)
    os.close(master)
    return proc.returncode, out.decode(), received.decode("utf-8", "replace")


def redraws(received):
    """The text of every redraw: the pieces between carriage returns and
    newlines, with the erase-line sequences removed."""
    pieces = re.split(r"[\r\n]+", received)
    return [ANSI.sub("", p) for p in pieces if ANSI.sub("", p).strip()]


class ProgressLine(unittest.TestCase):
    def check_fits(self, columns, shown):
        self.assertTrue(shown, "no progress line on the terminal")
        for line in shown:
            self.assertLess(len(line), columns, f"wider than {columns} columns: {line!r}")

    def test_120_columns(self):
        status, out, received = run_on_terminal(120, "15", "-e", "mirror", "-t", "1")
        self.assertEqual(status, 0, received)
        self.assertIn("N=15: 2279184 solutions", out)
        shown = redraws(received)
        self.check_fits(120, shown)
        self.assertRegex(shown[-1], r"^\[#+\] 100\.0%, ETA 0:00, elapsed \d+:\d\d, \d+/\d+ units, "
                         r"\d+(\.\d+)? ([kMGTPEZY] )?solutions/s$")

    def test_40_columns(self):
        status, out, received = run_on_terminal(40, "15", "-e", "mirror", "-t", "1")
        self.assertEqual(status, 0, received)
        self.assertIn("N=15: 2279184 solutions", out)
        shown = redraws(received)
        self.check_fits(40, shown)
        self.assertIn("100.0%", shown[-1])
        self.assertIn("ETA", shown[-1])

    def test_narrow_terminal(self):
        status, _, received = run_on_terminal(12, "12", "-e", "mirror", "-t", "1")
        self.assertEqual(status, 0, received)
        self.check_fits(12, redraws(received))

    def test_one_unit(self):
        for columns in (40, 120):
            status, out, received = run_on_terminal(columns, "12", "-e", "plain")
            self.assertEqual(status, 0, received)
            self.assertIn("N=12: 14200 solutions", out)
            shown = redraws(received)
            self.check_fits(columns, shown)
            self.assertIn("one unit", shown[-1])
            for line in shown:
                self.assertNotIn("%", line, "a one-unit job shows a fraction")
                self.assertIn("elapsed", line)


if __name__ == "__main__":
    NQUEENS = sys.argv.pop(1)
    unittest.main(verbosity=2)
