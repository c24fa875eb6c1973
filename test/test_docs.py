"""The documents against the tree they describe.

Run by meson as `python3 test_docs.py SOURCE_ROOT`.  Checks that

* every folder under src/ has a row in the source-layout table of
  docs/design.md, and every path that table names exists, so the table
  cannot drift from the tree;
* the README stays a guide (under 12,000 characters) and its quick start is
  the two commands CI and new users run;
* every relative link in the README and in docs/*.md resolves, anchors
  included;
* the generated tables (docs/perf/tables.py) are what docs/perf/ holds.
"""
import os
import re
import subprocess
import sys
import unittest

ROOT = None

README_MAX_CHARS = 12000
QUICK_START = [
    "bash .ci/setup && build/src/cli/nqueens 16",
    "bash .ci/setup && meson test -C build --print-errorlogs",
]

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`([^`]+)`")


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def section(text, heading):
    """The lines of the section under `heading` (up to the next heading of
    the same or a higher level)."""
    level = heading.split(" ")[0]
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = start
    while end < len(lines) and not re.match(r"#{1,%d} " % len(level), lines[end]):
        end += 1
    return lines[start:end]


def without_code_blocks(text):
    """text with fenced code blocks blanked out (links there are not links)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = heading.strip().lstrip("#").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(rel):
    text = without_code_blocks(read(rel))
    return {slug(line) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


def layout_paths():
    """The paths in the first column of design.md's source-layout table."""
    rows = [line for line in section(read("docs/design.md"), "## Source layout")
            if line.startswith("|")]
    paths = []
    for row in rows[2:]:  # after the header and the |---| line
        first = row.split("|")[1]
        paths += CODE_SPAN.findall(first)
    return paths


def matches(pattern, folder):
    """Whether a table path covers folder ("src/a/b/"): equal, or for a
    pattern with `**` (any run of folders) or `*` (one name), a match."""
    if "*" not in pattern:
        return pattern.rstrip("/") == folder.rstrip("/")
    regex = re.escape(pattern.rstrip("/")).replace(r"\*\*", "(?:.+)").replace(r"\*", "[^/]+")
    return re.fullmatch(regex, folder.rstrip("/")) is not None


def src_folders():
    for dirpath, dirnames, _ in os.walk(os.path.join(ROOT, "src")):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        yield os.path.relpath(dirpath, ROOT).replace(os.sep, "/") + "/"


class SourceLayout(unittest.TestCase):
    def test_every_src_folder_has_a_row(self):
        paths = layout_paths()
        self.assertTrue(paths, "docs/design.md has no '## Source layout' table")
        missing = [f for f in src_folders() if not any(matches(p, f) for p in paths)]
        self.assertEqual(missing, [], "folders missing from the source-layout table of "
                         "docs/design.md: add a row for each")

    def test_every_row_names_something_that_exists(self):
        gone = [p for p in layout_paths()
                if "*" not in p and not os.path.exists(os.path.join(ROOT, p))]
        self.assertEqual(gone, [], "docs/design.md's source-layout table names paths that "
                         "do not exist")


class Readme(unittest.TestCase):
    def test_size(self):
        size = len(read("README.md"))
        self.assertLess(size, README_MAX_CHARS, "README.md has %d characters; move detail "
                        "into docs/" % size)

    def test_quick_start(self):
        lines = section(read("README.md"), "## Quick start")
        start = next(i for i, line in enumerate(lines) if line.startswith("```"))
        end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
        commands = [re.sub(r"\s+#.*$", "", line) for line in lines[start + 1:end] if line]
        self.assertEqual(commands, QUICK_START)


class Links(unittest.TestCase):
    def check_links(self, rel):
        base = os.path.dirname(rel)
        broken = []
        for target in LINK.findall(without_code_blocks(read(rel))):
            if re.match(r"[a-z]+:", target):  # https:, mailto: ...
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(base, path)) if path else rel
            if not os.path.exists(os.path.join(ROOT, dest)):
                broken.append(target)
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                broken.append(target)
        self.assertEqual(broken, [], "broken links in " + rel)

    def test_readme_links(self):
        text = without_code_blocks(read("README.md"))
        self.assertTrue([t for t in LINK.findall(text) if t.startswith("docs/")],
                        "the README links to nothing in docs/")
        self.check_links("README.md")

    def test_docs_links(self):
        for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
            if name.endswith(".md"):
                with self.subTest(doc=name):
                    self.check_links("docs/" + name)


class GeneratedTables(unittest.TestCase):
    def test_tables_match_the_data(self):
        run = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "perf", "tables.py"),
                              "--check"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_docs.py SOURCE_ROOT")
    ROOT = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
