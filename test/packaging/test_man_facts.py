"""The facts the manual pages state that code can check, checked.

Run by meson as
  test_man_facts.py HEADER SRC MAN_DIR NQUEENS BENCH LIBNQUEENS_SO [NQUEENS_MPI]
with the pages as configured into MAN_DIR.  test_man.py keeps the option
lists and the function names in step; this test reads what the pages say
about behaviour and asks the header, the sources and the built programs:

* engine limits: the largest N each engine counts (nq_check_settings
  through the built library), as nqueens(1) and libnqueens(3) state them;
* ranges: N, threads, split depth, the listing limit and nqueens-mpi's
  --rank-timeout, against the header's and src/cli/options.h's constants;
* --json: the fields nqueens(1) lists, in order, against the output;
* signals and exit statuses: the signals the CLI handles (its sigaction
  calls) in SIGNALS, 128 + each in EXIT STATUS, and the statuses the
  programs give for success, bad input and a lost result;
* libnqueens(3): RETURN VALUE names every NQ_E* code of the header, the
  SYNOPSIS declarations equal the header's (the cancel flag's type
  included), every nq_settings field and every public struct is described;
* EXAMPLES, ENVIRONMENT and FILES sections where they apply.

A fact changed on one side only fails here.
"""
import ctypes
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import unittest

HEADER = SRC = MAN_DIR = NQUEENS = BENCH = LIBRARY = MPI = None
ENGINES = ["plain", "mirror", "full", "mitm"]


def roff_line(line):
    """One line of roff source as the reader sees it: macros' arguments
    joined as the font macros join them, escapes resolved."""
    line = (line.replace("\\(<=", "<=").replace("\\(>=", ">=").replace("\\(mu", "x")
            .replace("\\-", "-").replace("\\e", "\\").replace("\\~", " ").replace("\\&", ""))
    line = re.sub(r"\\f[BIRP]", "", line)
    m = re.match(r"^\.(B|I|BR|RB|BI|IB|IR|RI)\s+(.*)$", line)
    if m:
        try:
            args = shlex.split(m.group(2), posix=True)
        except ValueError:
            args = m.group(2).split()
        return ("" if len(m.group(1)) == 2 else " ").join(args)
    if line.startswith(".") or line.startswith("'"):
        return ""
    return line


def page(name):
    with open(os.path.join(MAN_DIR, name), encoding="utf-8") as f:
        return f.read()


def sections(name):
    """Maps each .SH name of a page to its raw lines."""
    out, current = {}, None
    for line in page(name).splitlines():
        if line.startswith(".SH "):
            current = line[4:].strip().strip('"')
            out[current] = []
        elif current:
            out[current].append(line)
    return out


def text(lines):
    """The prose of some roff lines, one space between words."""
    return re.sub(r"\s+", " ", " ".join(roff_line(line) for line in lines)).strip()


def tagged(lines):
    """The .TP entries of a section: [(tag, body text)]."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == ".TP" and i + 1 < len(lines):
            tag, body, i = roff_line(lines[i + 1]).strip(), [], i + 2
            while i < len(lines) and lines[i].strip() not in (".TP", ".RS", ".RE", ".PP"):
                body.append(lines[i])
                i += 1
            out.append((tag, text(body)))
        else:
            i += 1
    return out


def header():
    with open(HEADER, encoding="utf-8") as f:
        return f.read()


def header_define(name):
    return int(re.search(rf"#define {name} (\d+)", header()).group(1))


def cli_define(name):
    with open(os.path.join(SRC, "cli", "options.h"), encoding="utf-8") as f:
        return int(re.search(rf"#define {name} (\d+)", f.read()).group(1))


def run(*args, **kw):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, **kw)


def sanitized_library():
    """True when the library was built with a sanitizer: its runtime must
    come first in the process, which ctypes in a plain Python cannot give it
    (the plain builds check the limits)."""
    p = run("nm", "-D", "--undefined-only", LIBRARY)
    return any(re.search(r"\b__(asan|tsan|ubsan|msan)_", line) for line in p.stdout.splitlines())


def engine_limit(engine):
    """The largest N the engine counts, asked of the built library: the
    first four fields of nq_settings (n, threads, engine, split_depth) are
    ints, the rest is left as nq_default_settings() fills it."""
    if sanitized_library():
        raise unittest.SkipTest("the library needs a sanitizer runtime that this Python "
                                "did not load")
    lib = ctypes.CDLL(LIBRARY)
    settings = ctypes.create_string_buffer(4096)
    lib.nq_default_settings(settings)
    detail = ctypes.create_string_buffer(256)
    ints = (ctypes.c_int * 4).from_buffer(settings)
    ints[2] = ENGINES.index(engine) + 1  # enum nq_engine: AUTO = 0, then this order
    for n in range(header_define("NQ_MAX_N"), 0, -1):
        ints[0] = n
        if lib.nq_check_settings(settings, detail, ctypes.c_size_t(256)) == 0:
            return n
    return 0


def normalize(decl):
    decl = re.sub(r"\s+", " ", decl.replace("NQ_API", "")).strip()
    return re.sub(r"\s*([*(),;])\s*", r"\1", decl)


def header_declarations():
    found = {}
    for decl in re.findall(r"^NQ_API\b([^;{]*;)", header(), re.M):
        name = re.search(r"\b(nq_\w+)\s*\(", decl).group(1)
        found[name] = normalize(decl)
    return found


def synopsis_declarations():
    found, pending = {}, ""
    for line in sections("libnqueens.3")["SYNOPSIS"]:
        if not re.match(r"^\.(B|BI)\s", line) or roff_line(line).startswith("#"):
            continue
        pending += " " + roff_line(line)
        if pending.rstrip().endswith(";"):
            m = re.search(r"\b(nq_\w+)\s*\(", pending)
            if m and not pending.strip().startswith(("typedef", "#")):
                found[m.group(1)] = normalize(pending)
            pending = ""
    return found


class EngineLimits(unittest.TestCase):
    def test_nqueens_page(self):
        entries = dict(tagged(sections("nqueens.1")["OPTIONS"]))
        for engine in ENGINES:
            limit = engine_limit(engine)
            self.assertGreater(limit, 3, engine)
            said = re.findall(r"N <= (\d+)", entries[engine])
            if limit < header_define("NQ_MAX_N"):
                self.assertEqual(said, [str(limit)], f"nqueens(1) on {engine}: {entries[engine]}")
            else:
                self.assertEqual(said, [], f"nqueens(1) gives {engine} a limit it lacks")

    def test_library_page(self):
        body = dict(tagged(sections("libnqueens.3")["RETURN VALUE"]))["NQ_EUNSUPPORTED"]
        said = re.findall(r"(\w+) beyond n = (\d+)", body)
        self.assertTrue(said, body)
        for engine, n in said:
            self.assertEqual(int(n), engine_limit(engine), body)


class Ranges(unittest.TestCase):
    def test_nqueens_options(self):
        entries = dict(tagged(sections("nqueens.1")["OPTIONS"]))
        n = entries["N"]
        self.assertIn(f"{header_define('NQ_MIN_N')} to {header_define('NQ_MAX_N')}", n)
        self.assertIn(f"1 to {header_define('NQ_MAX_THREADS')}", entries["-t, --threads T"])
        self.assertIn(f"1 to {header_define('NQ_MAX_SPLIT_DEPTH')}",
                      entries["--split-depth D"])
        self.assertIn(f"N = {cli_define('NQ_CLI_LIST_MAX_N')}", entries["--limit K"])

    def test_rank_timeout(self):
        if not MPI:
            self.skipTest("no nqueens-mpi")
        entries = dict(tagged(sections("nqueens-mpi.1")["OPTIONS"]))
        body = entries["--rank-timeout S"]
        self.assertIn(f"1 to {cli_define('NQ_CLI_RANK_TIMEOUT_MAX')}", body)
        self.assertIn(f"default {cli_define('NQ_CLI_RANK_TIMEOUT_DEFAULT')}", body)


class Json(unittest.TestCase):
    def test_fields_in_order(self):
        body = dict(tagged(sections("nqueens.1")["OPTIONS"]))["--json"]
        listed = re.search(r"\(([a-z_, ]+)\)", body).group(1).replace(" ", "").split(",")
        for engine in ["full", "mitm"]:
            p = run(NQUEENS, "10", "--json", "-e", engine)
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(p.stdout)
            self.assertEqual(list(doc), listed, "nqueens(1)'s --json fields")
            self.assertEqual(doc["total_decimal"], str(doc["total"]))


class SignalsAndStatuses(unittest.TestCase):
    def handled_signals(self):
        with open(os.path.join(SRC, "cli", "console.c"), encoding="utf-8") as f:
            names = re.findall(r"sigaction\((SIG[A-Z]+),", f.read())
        self.assertGreaterEqual(len(names), 2)
        return names

    def statuses(self, name):
        return dict(tagged(sections(name)["EXIT STATUS"]))

    def check_signals(self, name):
        said = text(sections(name)["SIGNALS"])
        statuses = self.statuses(name)
        signal_row = next(body for tag, body in statuses.items() if "signal" in tag)
        for sig in self.handled_signals():
            self.assertIn(sig, said, f"{name}: SIGNALS")
            number = 128 + getattr(signal, sig).value
            self.assertIn(f"{number} for {sig}", signal_row, f"{name}: EXIT STATUS")

    def test_nqueens(self):
        self.check_signals("nqueens.1")
        statuses = self.statuses("nqueens.1")
        self.assertEqual(sorted(statuses), ["0", "1", "128 + signal", "2", "4"])
        self.assertEqual(run(NQUEENS, "6").returncode, 0)
        self.assertEqual(run(NQUEENS, "0").returncode, 2)
        with open("/dev/full", "w") as full:
            p = subprocess.run([NQUEENS, "6"], stdout=full, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(p.returncode, 1)

    def test_nqueens_mpi(self):
        if not MPI:
            self.skipTest("no nqueens-mpi")
        self.check_signals("nqueens-mpi.1")
        self.assertEqual(sorted(self.statuses("nqueens-mpi.1")),
                         ["0", "1", "128 + signal", "2", "3", "4"])

    def test_bench(self):
        statuses = self.statuses("nqueens-bench.1")
        self.assertEqual(sorted(statuses), ["0", "1", "2"])
        self.assertEqual(run(BENCH, "--repeat", "x").returncode, 2)
        p = run(BENCH, "-n", "6", "-t", "1", "-e", "plain", "-r", "1", "--warmup", "0")
        self.assertEqual(p.returncode, 0, p.stderr)


class BenchColumns(unittest.TestCase):
    def test_output_columns(self):
        p = run(BENCH, "-n", "6", "-t", "1", "-e", "mirror", "-r", "1", "--warmup", "0")
        self.assertEqual(p.returncode, 0, p.stderr)
        printed = p.stdout.splitlines()[0].split()
        described = []
        for tag, _ in tagged(sections("nqueens-bench.1")["OUTPUT"]):
            described += tag.replace(",", " ").split()
        self.assertEqual(described, printed, "nqueens-bench(1) OUTPUT")


class LibraryPage(unittest.TestCase):
    def test_return_values_are_the_headers_codes(self):
        errors = re.search(r"enum nq_error \{(.*?)\};", header(), re.S).group(1)
        codes = set(re.findall(r"\b(NQ_E[A-Z_]+)\s*=", errors))
        said = set()
        for tag, _ in tagged(sections("libnqueens.3")["RETURN VALUE"]):
            said.update(re.findall(r"NQ_E[A-Z_]+", tag))
        self.assertEqual(said, codes)

    def test_synopsis_is_the_header(self):
        ours, theirs = synopsis_declarations(), header_declarations()
        self.assertEqual(set(ours), set(theirs))
        for name, decl in theirs.items():
            self.assertEqual(ours[name], decl, f"libnqueens(3) SYNOPSIS of {name}")

    def test_cancel_type(self):
        typedef = re.search(r"typedef (\w+) nq_cancel_flag;\s*#endif", header())
        self.assertIsNotNone(typedef)
        description = text(sections("libnqueens.3")["DESCRIPTION"])
        self.assertIn("nq_cancel_flag", description)
        self.assertIn(typedef.group(1), description)

    def test_settings_fields_and_structs(self):
        body = re.search(r"typedef struct nq_settings \{(.*?)\} nq_settings;", header(), re.S)
        fields = re.findall(r"\b(\w+)(?:\[\d+\])?;", re.sub(r"/\*.*?\*/", "", body.group(1),
                                                            flags=re.S))
        fields += re.findall(r"\(\*(\w+)\)", body.group(1))
        fields = [f for f in fields if not f.endswith("_")]
        tags = " ".join(tag for tag, _ in tagged(sections("libnqueens.3")["DESCRIPTION"]))
        for field in fields:
            self.assertRegex(tags, rf"\b{field}\b", "nq_settings field not described")
        description = text(sections("libnqueens.3")["DESCRIPTION"])
        for struct in re.findall(r"typedef struct (nq_\w+) \{", header()):
            self.assertIn(struct, description)


class Sections(unittest.TestCase):
    WANTED = {
        "nqueens.1": ["ENVIRONMENT", "FILES", "SIGNALS", "EXIT STATUS", "EXAMPLES"],
        "nqueens-bench.1": ["OUTPUT", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"],
        "libnqueens.3": ["RETURN VALUE", "ENVIRONMENT", "FILES", "EXAMPLES"],
    }

    def test_sections(self):
        wanted = dict(self.WANTED)
        if MPI:
            wanted["nqueens-mpi.1"] = ["ENVIRONMENT", "FILES", "SIGNALS", "EXIT STATUS",
                                       "EXAMPLES"]
        for name, want in wanted.items():
            have = sections(name)
            for section in want:
                self.assertIn(section, list(have), name)
                self.assertTrue(text(have[section]), f"{name}: {section} is empty")


if __name__ == "__main__":
    HEADER, SRC, MAN_DIR, NQUEENS, BENCH, LIBRARY = sys.argv[1:7]
    if len(sys.argv) > 7:
        MPI = sys.argv[7]
    del sys.argv[1:]
    unittest.main(verbosity=2)
