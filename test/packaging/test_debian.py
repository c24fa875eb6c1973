"""The Debian packaging stays in step with meson.build and the header,
so a mismatch fails here, long before a package build.

Run by meson as
  test_debian.py SOURCE_ROOT VERSION SOVERSION HEADER

Checks that debian/changelog's upstream version is the project version,
that the shared library package is named after the SONAME, and that
debian/libnqueens<SOVERSION>.symbols lists exactly the header's NQ_API
functions (the package build itself, at dpkg-gensymbols check level 4,
fails on any exported symbol the file does not list or one it lists that
is gone).
"""
import os
import re
import sys
import unittest

ROOT = VERSION = SOVERSION = HEADER = None
API_FUNCTION = re.compile(r"\bNQ_API\b[^;{]*?\b(nq_\w+)\s*\(")


def debian(name):
    with open(os.path.join(ROOT, "debian", name), encoding="utf-8") as f:
        return f.read()


class Debian(unittest.TestCase):
    def test_changelog_version(self):
        first = debian("changelog").splitlines()[0]
        m = re.match(r"nqueens \(([^)]+)\) ", first)
        self.assertIsNotNone(m, first)
        upstream = m.group(1).rsplit("-", 1)[0]
        self.assertEqual(upstream, VERSION, "debian/changelog's version is not meson.build's: "
                         "add a changelog entry (dch -v VERSION-1)")

    def test_library_package_follows_soname(self):
        packages = re.findall(r"^Package: (\S+)$", debian("control"), re.M)
        self.assertIn(f"libnqueens{SOVERSION}", packages)
        self.assertIn("libnqueens-dev", packages)
        self.assertIn("nqueens", packages)

    def test_symbols_file_lists_the_api(self):
        text = debian(f"libnqueens{SOVERSION}.symbols")
        lines = text.splitlines()
        self.assertEqual(lines[0], f"libnqueens.so.{SOVERSION} libnqueens{SOVERSION} #MINVER#")
        listed = [l.split()[0].split("@")[0] for l in lines[1:] if l.startswith(" ")]
        with open(HEADER, encoding="utf-8") as f:
            api = set(API_FUNCTION.findall(f.read()))
        self.assertEqual(len(listed), len(set(listed)))
        self.assertEqual(set(listed), api,
                         "debian/libnqueens*.symbols does not match the header's NQ_API "
                         "functions (see debian/README.source)")


if __name__ == "__main__":
    ROOT, VERSION, SOVERSION, HEADER = sys.argv[1:5]
    del sys.argv[1:]
    unittest.main(verbosity=2)
