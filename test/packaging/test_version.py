"""--version: every tool prints the project version from meson.build and,
when built from a git checkout, the commit checked out.

Run by meson as
  test_version.py VERSION SOURCE_ROOT TOOL...

A source tree without its own .git (a release tarball from `meson dist`)
must give the plain version; in a checkout the commit printed must be the
checked-out one (HEAD), with "-dirty" allowed for uncommitted changes.
"""
import os
import re
import subprocess
import sys
import unittest

from tool_run import run_tool

VERSION = ROOT = None
TOOLS = []


def head_commit():
    """HEAD of SOURCE_ROOT's own repository, or None for a tarball tree."""
    if not os.path.exists(os.path.join(ROOT, ".git")):
        return None
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                       text=True)
    return p.stdout.strip() if p.returncode == 0 else None


class Version(unittest.TestCase):
    def test_every_tool(self):
        self.assertTrue(TOOLS)
        head = head_commit()
        for tool in TOOLS:
            prog = os.path.basename(tool)
            with self.subTest(tool=prog):
                line = run_tool(tool, "--version")
                if head is None:
                    self.assertEqual(line, f"{prog} {VERSION}\n")
                    continue
                m = re.fullmatch(rf"{re.escape(prog)} {re.escape(VERSION)} "
                                 r"\(git ([0-9a-f]{12})(-dirty)?\)\n", line)
                self.assertIsNotNone(m, line)
                self.assertTrue(head.startswith(m.group(1)), f"{line!r} is not HEAD {head}")


if __name__ == "__main__":
    VERSION, ROOT = sys.argv[1:3]
    TOOLS = sys.argv[3:]
    del sys.argv[1:]
    unittest.main(verbosity=2)
