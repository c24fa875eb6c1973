"""Running the built tools from the packaging tests.

nqueens-mpi started without mpiexec is an MPI singleton: Open MPI wants
the run-as-root permission when root, and under ASan its never-freed
allocations are suppressed (../openmpi-lsan.supp), as in mpi_util.py:
unwinding slowly lets LeakSanitizer see which library a leak came from.
"""
import os
import subprocess

_SUPP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "openmpi-lsan.supp")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ENV["LSAN_OPTIONS"] = ":".join(filter(None, [ENV.get("LSAN_OPTIONS"), f"suppressions={_SUPP}"]))
ENV["ASAN_OPTIONS"] = ":".join(filter(None, [ENV.get("ASAN_OPTIONS"), "fast_unwind_on_malloc=0"]))


def run_tool(path, *args):
    """Runs a tool with ENV; returns its stdout after checking it exited 0."""
    p = subprocess.run([path, *args], capture_output=True, text=True, timeout=60, env=ENV)
    if p.returncode != 0:
        raise AssertionError(f"{path} {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.stdout


def help_options(path):
    """The options (short and long) a tool's --help lists, one option per line.

    Option lines are indented by at most 6 spaces ("  -t, --threads T",
    "      --json"); deeper lines continue a description and may mention
    options in passing, so they are not read.
    """
    found = set()
    for line in run_tool(path, "--help").splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0 or indent > 6 or not line.lstrip().startswith("-"):
            continue
        head = line.strip().split("  ")[0]  # "-t, --threads T"
        for word in head.replace(",", " ").split():
            if word.startswith("-"):
                found.add(word)
    return found
