"""Shell completion: drives the bash completion functions as bash would on
<TAB>, and checks that the bash and zsh completions offer exactly the
options each tool's --help prints.

Run by meson as
  test_completion.py BASH_FILE ZSH_FILE NQUEENS NQUEENS_BENCH [NQUEENS_MPI]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from tool_run import help_options

BASH_FILE = ZSH_FILE = NQUEENS = BENCH = MPI = None
ENGINES = {"auto", "plain", "mirror", "full", "mitm"}

# Sources the completion, sets the words as bash does for the line typed so
# far (the cursor at its end) and prints what the function offers.
DRIVER = r'''
source "$1" || exit 1
shift
func=$1
shift
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
"$func"
printf '%s\n' "${COMPREPLY[@]}"
'''


def complete(func, *words, cwd=None):
    """What `func` offers for the words typed (the last one is being completed)."""
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", DRIVER, "bash", BASH_FILE,
                        func, *words], capture_output=True, text=True, timeout=30, cwd=cwd)
    if p.returncode != 0:
        raise AssertionError(f"bash exited {p.returncode}: {p.stderr}")
    return {line for line in p.stdout.splitlines() if line}


class Bash(unittest.TestCase):
    def test_engines(self):
        self.assertEqual(complete("_nqueens", "nqueens", "16", "-e", ""), ENGINES)
        self.assertEqual(complete("_nqueens", "nqueens", "16", "--engine", "mi"),
                         {"mirror", "mitm"})
        # "--engine=fu": bash splits the word at '='.
        self.assertEqual(complete("_nqueens", "nqueens", "16", "--engine", "=", "fu"), {"full"})
        self.assertEqual(complete("_nqueens", "nqueens", "16", "--engine", "=", ""), ENGINES)

    def test_formats(self):
        self.assertEqual(complete("_nqueens", "nqueens", "8", "--solutions", "--format", ""),
                         {"board", "columns"})
        self.assertEqual(complete("_nqueens", "nqueens", "8", "--format", "c"), {"columns"})

    def test_an_option(self):
        self.assertEqual(complete("_nqueens", "nqueens", "16", "--che"), {"--checkpoint"})
        self.assertEqual(complete("_nqueens", "nqueens", "16", "--no-"), {"--no-progress"})
        # A board size is a number: nothing to offer.
        self.assertEqual(complete("_nqueens", "nqueens", ""), set())

    def test_options_match_help(self):
        self.assertEqual(complete("_nqueens", "nqueens", "-"), help_options(NQUEENS))
        self.assertEqual(complete("_nqueens_bench", "nqueens-bench", "-"), help_options(BENCH))
        if MPI:
            self.assertEqual(complete("_nqueens", "nqueens-mpi", "-"), help_options(MPI))

    def test_checkpoint_completes_files(self):
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "n20.journal"), "w").close()
            self.assertEqual(complete("_nqueens", "nqueens", "20", "--checkpoint", "n2", cwd=d),
                             {"n20.journal"})

    def test_bench_engine_list(self):
        self.assertEqual(complete("_nqueens_bench", "nqueens-bench", "-e", "mirror,f"),
                         {"mirror,full"})
        self.assertEqual(complete("_nqueens_bench", "nqueens-bench", "--engine", "m"),
                         {"mirror", "mitm"})

    def test_every_tool_is_registered(self):
        p = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                            'source "$1" && complete -p nqueens nqueens-mpi nqueens-bench',
                            "bash", BASH_FILE], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines(), ["complete -F _nqueens nqueens",
                                                 "complete -F _nqueens nqueens-mpi",
                                                 "complete -F _nqueens_bench nqueens-bench"])


def zsh_mpi_only():
    """Options the zsh completion adds for nqueens-mpi alone (its mpi_only array)."""
    with open(ZSH_FILE, encoding="utf-8") as f:
        line = next(l for l in f if "mpi_only=('" in l)
    return set(re.findall(r"'(--[a-z-]+)=", line))


def zsh_options(service_pattern):
    """Options of the zsh _arguments specs in the case branch `service_pattern)`."""
    with open(ZSH_FILE, encoding="utf-8") as f:
        text = f.read()
    branch = text.split(f"\n{service_pattern})\n", 1)[1].split("\n  ;;", 1)[0]
    found = set()
    for line in branch.splitlines():
        if not line.strip().startswith("'"):
            continue                               # _arguments' own flags
        line = re.sub(r"'\([^)]*\)'", "", line)   # exclusion lists: "(-t --threads)"
        line = re.sub(r"\[[^\]]*\]", "", line)     # descriptions may name options
        line = line.split(":", 1)[0]               # the argument's message and action
        found.update(re.findall(r"(?<![\w-])(--?[A-Za-z][A-Za-z-]*)", line))
    return found


class Zsh(unittest.TestCase):
    def test_options_match_help(self):
        self.assertEqual(zsh_options("*"), help_options(NQUEENS))
        self.assertEqual(zsh_options("nqueens-bench"), help_options(BENCH))
        if MPI:
            self.assertEqual(zsh_options("*") | zsh_mpi_only(), help_options(MPI))

    def test_parses(self):
        zsh = shutil.which("zsh")
        if not zsh:
            self.skipTest("zsh is not installed (CI installs it and runs this check)")
        p = subprocess.run([zsh, "-n", ZSH_FILE], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)


if __name__ == "__main__":
    BASH_FILE, ZSH_FILE, NQUEENS, BENCH = sys.argv[1:5]
    MPI = sys.argv[5] if len(sys.argv) > 5 else None
    del sys.argv[1:]
    unittest.main(verbosity=2)
