#!/usr/bin/env python3
"""Every pair of `nqueens` options, in both orders: each is either refused
as bad input (exit 2, one line on stderr naming an option of the pair,
nothing on stdout) or runs to success (exit 0), as the rules below say.

Run by meson as `python3 test_option_pairs.py PATH_TO_NQUEENS`.  The
options are read from `nqueens --help`, so an option added to the program
but not to SAMPLE (a value to give it) fails here, and so does a pair the
program refuses or accepts against RULES: the rules are the README's
"options that do not apply are refused" spelt out.  The program's side is
check_mode() in src/cli/options.c.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

NQUEENS = None
N = "8"

# A valid value for each option that takes one (None: a flag).
SAMPLE = {
    "--threads": "2", "--engine": "mirror", "--split-depth": "2", "--json": None,
    "--quiet": None, "--solutions": None, "--limit": "3", "--format": "columns",
    "--progress": None, "--no-progress": None, "--checkpoint": "@journal",
    "--rank-timeout": "5", "--help": None, "--version": None, "--schedule": "tasks", "--output": "@output",
    "--verify": "0.5", "--memory": "1G",
}

# Options that only apply when counting (refused with --solutions).
COUNTING = {"--threads", "--engine", "--split-depth", "--json", "--progress", "--checkpoint", "--schedule", "--output",
            "--rank-timeout", "--verify", "--memory"}
# Options that only apply to listing (refused without --solutions).
LISTING = {"--limit", "--format"}
# Pairs that cannot both hold.
CONFLICTS = [{"--json", "--quiet"}, {"--progress", "--no-progress"}]
# Refused alone by nqueens (nqueens-mpi's only).
MPI_ONLY = {"--rank-timeout"}


def expected_refusal(pair):
    """The option of the pair that makes the command bad input, or None
    when the command must succeed.  --help and --version end parsing as
    soon as they are read, so a pair with one of them succeeds (what
    follows them is never parsed, what precedes is well-formed)."""
    opts = set(pair)
    if opts & {"--help", "--version"}:
        return None
    for conflict in CONFLICTS:
        if conflict <= opts:
            return conflict
    if opts & MPI_ONLY:
        return opts & MPI_ONLY
    if "--solutions" in opts:
        if opts & COUNTING:
            return opts & COUNTING
    elif opts & LISTING:
        return opts & LISTING
    return None


def help_options():
    out = subprocess.run([NQUEENS, "--help"], capture_output=True, text=True,
                         check=True).stdout
    return sorted(set(re.findall(r"^\s+(?:-\w, )?(--[a-z][a-z-]*)", out, re.M)))


class OptionPairs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def args(self, option, tag):
        value = SAMPLE[option]
        if value is None:
            return [option]
        if value in ("@journal", "@output"):
            value = os.path.join(self.tmp.name, f"{tag}.{value[1:]}")
        return [option, value]

    def test_every_option_has_a_sample(self):
        missing = [o for o in help_options() if o not in SAMPLE]
        self.assertEqual(missing, [], "options in --help without a value in SAMPLE")

    def test_every_pair(self):
        options = help_options()
        self.assertGreater(len(options), 10, "--help lists too few options")
        failures = []
        for i, first in enumerate(options):
            for j, second in enumerate(options):
                if first not in SAMPLE or second not in SAMPLE:
                    continue
                argv = [N, *self.args(first, f"{i}-{j}"), *self.args(second, f"{i}-{j}")]
                p = subprocess.run([NQUEENS, *argv], capture_output=True, text=True,
                                   timeout=60, stdin=subprocess.DEVNULL)
                refused = expected_refusal((first, second))
                shown = " ".join(argv)
                if refused is None:
                    # With --output the result goes to the file, not stdout.
                    output = [a for a in argv if a.endswith(".output")]
                    wrote = (os.path.getsize(output[0]) > 0 if output and os.path.exists(output[0])
                             else bool(p.stdout))
                    if p.returncode != 0 or not wrote:
                        failures.append(f"{shown}: want success, got exit {p.returncode}, "
                                        f"stderr {p.stderr.strip()!r}")
                    continue
                lines = p.stderr.splitlines()
                if (p.returncode != 2 or p.stdout or len(lines) != 1
                        or not any(o in lines[0] for o in refused)):
                    failures.append(f"{shown}: want exit 2 and one line naming "
                                    f"{' or '.join(sorted(refused))}, got exit {p.returncode}, "
                                    f"stderr {p.stderr.strip()!r}")
        self.assertEqual(failures, [], "\n" + "\n".join(failures))

    def test_rules_can_fail(self):
        # The model itself: a rule that never refuses would pass every pair
        # that the program accepts.
        self.assertEqual(expected_refusal(("--json", "--quiet")), {"--json", "--quiet"})
        self.assertIsNone(expected_refusal(("--quiet", "--solutions")))
        self.assertIsNone(expected_refusal(("--limit", "--help")))
        self.assertEqual(expected_refusal(("--limit", "--quiet")), {"--limit"})


if __name__ == "__main__":
    NQUEENS = sys.argv.pop(1)
    unittest.main(verbosity=2)
