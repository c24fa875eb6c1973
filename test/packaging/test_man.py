"""The manual pages stay in step with the tools and the header.

Run by meson as
  test_man.py VERSION HEADER LIBRARY_PAGE LINKS PAGE=TOOL...
with the pages as configured into the build folder.  Checks that

* each tool page's OPTIONS section lists exactly the options its tool's
  --help prints, and that its .TH line carries the project version;
* libnqueens(3) names every NQ_API function of the header in NAME, declares
  each in SYNOPSIS and describes each ("name ()") in the text, and names no
  function the header lacks; LINKS (the link pages meson installs, comma-
  separated) are exactly those functions.
"""
import os
import re
import sys
import unittest

from tool_run import help_options

VERSION = HEADER = LIBRARY_PAGE = None
LINKS = []
PAGES = []  # (configured page, tool)

OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][A-Za-z-]*)")
API_FUNCTION = re.compile(r"\bNQ_API\b[^;{]*?\b(nq_\w+)\s*\(")


def plain(roff):
    """Roff source with font escapes dropped and \\- turned into -."""
    return re.sub(r"\\f[BIRP]", "", roff).replace("\\-", "-").replace("\\e", "\\")


def sections(path):
    """Maps each .SH name of a page to its lines."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out, name = {}, None
    for line in lines:
        if line.startswith(".SH "):
            name = line[4:].strip().strip('"')
            out[name] = []
        elif name:
            out[name].append(line)
    return out


def page_options(path):
    """Options named in the tags (.TP's next line) of the OPTIONS section."""
    lines = sections(path)["OPTIONS"]
    found = set()
    for i, line in enumerate(lines[:-1]):
        if line.strip() == ".TP":
            found.update(OPTION.findall(plain(lines[i + 1])))
    return found


def header_functions():
    with open(HEADER, encoding="utf-8") as f:
        return set(API_FUNCTION.findall(f.read()))


class ToolPages(unittest.TestCase):
    def test_options_match_help(self):
        self.assertTrue(PAGES)
        for page, tool in PAGES:
            with self.subTest(page=os.path.basename(page)):
                listed = page_options(page)
                printed = help_options(tool)
                self.assertIn("--help", printed)
                self.assertEqual(listed, printed,
                                 f"only in the page: {sorted(listed - printed)}; "
                                 f"only in --help: {sorted(printed - listed)}")

    def test_title_carries_version(self):
        for page, _ in PAGES + [(LIBRARY_PAGE, None)]:
            with open(page, encoding="utf-8") as f:
                title = next(l for l in f if l.startswith(".TH "))
            self.assertIn(f'"nqueens {VERSION}"', title, page)


class LibraryPage(unittest.TestCase):
    def setUp(self):
        self.sections = sections(LIBRARY_PAGE)
        self.functions = header_functions()
        self.assertGreater(len(self.functions), 10)

    def test_name_lists_every_function(self):
        text = plain(" ".join(self.sections["NAME"])).split(" - ")[0]
        named = {w.strip() for w in text.split(",")} - {"libnqueens"}
        self.assertEqual(named, self.functions)

    def test_synopsis_declares_every_function(self):
        text = plain("\n".join(self.sections["SYNOPSIS"])).replace('"', "")
        declared = set(re.findall(r"\b(nq_\w+)\(", text))
        self.assertEqual(declared, self.functions)

    def test_text_describes_every_function(self):
        text = plain("\n".join(sum((v for k, v in self.sections.items()
                                    if k not in ("NAME", "SYNOPSIS")), [])))
        for name in sorted(self.functions):
            self.assertRegex(text, rf"\.BR {name} \(\)", f"{name} is not described")

    def test_links_cover_every_function(self):
        self.assertEqual(set(LINKS), self.functions)
        self.assertEqual(len(LINKS), len(set(LINKS)))


if __name__ == "__main__":
    VERSION, HEADER, LIBRARY_PAGE, links = sys.argv[1:5]
    LINKS = [l for l in links.split(",") if l]
    PAGES = [tuple(arg.split("=", 1)) for arg in sys.argv[5:]]
    del sys.argv[1:]
    unittest.main(verbosity=2)
