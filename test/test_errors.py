"""The public header's error lists against the code.

Run by meson as `python3 test_errors.py SRC_DIR PUBLIC_HEADER`.  Every
public function whose comment says what it returns ("Returns 0, ...")
names the NQ_E* codes it can return.  This test reads the library's C
source and works out, for each such function, which codes can come out of
it: the codes its body returns or assigns, and, through every call whose
result it returns or stores (`return f(...)`, `ret = f(...)`, an engine
hook `ops->plan(...)`), the codes of the functions it calls, to any depth.
Then it checks both ways:

* every code the code can return is in the header's list (a caller
  switching on the list handles them all), and
* every code in the list can come out of the code (the list does not
  promise what cannot happen).

The reading is by pattern, not a compiler: it over-counts when a stored
result is turned into another code, which shows as a code the header does
not list.  A few such cases are named in NOT_RETURNED with the reason.
"""
import os
import re
import sys
import unittest

SRC = HEADER = None

# The library's layers (the programs in cli/ and mpi/ are not the API).
LIBRARY = ("core", "journal", "run", "engines", "api")

# (function, code): the pattern reading finds a path that the code does not
# take, with why.
NOT_RETURNED = {
}

CODE = re.compile(r"\bNQ_E[A-Z0-9_]+\b")
# The header's error codes: the enum members with a negative value (which
# tells them from NQ_ENGINE_* and other NQ_E names).
ERROR_CODE = re.compile(r"^\s*(NQ_E\w+)\s*=\s*-\d+", re.M)
# A function definition at the start of a line: return type, name, (args) {
DEFINITION = re.compile(r"^(?!\s)(?:[\w\s\*]+?)\b(\w+)\s*\(([^;{}()]|\([^()]*\))*\)\s*\{", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
HOOK = re.compile(r"\.(\w+)\s*=\s*(\w+)\s*,")


def strip_comments(text):
    return COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def body_end(text, start):
    """Index just past the brace that closes the one at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError("unbalanced braces")


def library_files():
    for layer in LIBRARY:
        for root, _, files in os.walk(os.path.join(SRC, layer)):
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    yield os.path.join(root, name)


def read_functions():
    """({(file, name): body}, {name: [file]} for non-static ones,
    {hook field: {function}}) over the library's sources."""
    bodies, globals_, hooks = {}, {}, {}
    for path in library_files():
        with open(path, encoding="utf-8") as f:
            text = strip_comments(f.read())
        for m in DEFINITION.finditer(text):
            name = m.group(1)
            if name in ("if", "for", "while", "switch", "return", "sizeof"):
                continue
            end = body_end(text, m.end() - 1)
            bodies[(path, name)] = text[m.end():end]
            if not re.match(r"\s*static\b", m.group(0)):
                globals_.setdefault(name, []).append(path)
        for field, func in HOOK.findall(text):
            hooks.setdefault(field, set()).add(func)
    return bodies, globals_, hooks


def error_codes():
    with open(HEADER, encoding="utf-8") as f:
        return set(ERROR_CODE.findall(f.read()))


def returned_codes():
    """{name: set of codes} for every non-static function, to any call depth."""
    errors = error_codes()
    bodies, globals_, hooks = read_functions()
    by_name = {}
    for path, name in bodies:
        by_name.setdefault(name, []).append(path)

    def resolve(path, callee):
        if (path, callee) in bodies:
            return [(path, callee)]
        return [(p, callee) for p in globals_.get(callee, [])]

    direct, calls = {}, {}
    for key, body in bodies.items():
        path = key[0]
        # Codes the body produces: not those it only compares with or
        # switches on.
        kept = re.sub(r"(==|!=)\s*NQ_E\w+|\bcase\s+NQ_E\w+", "", body)
        direct[key] = set(CODE.findall(kept)) & errors
        targets = set()
        for callee in re.findall(r"(?:\breturn\s+|[^=!<>]=\s*)\(?\s*(\w+)\s*\(", body):
            targets.update(resolve(path, callee))
        for field in re.findall(r"(?:\breturn\s+|[^=!<>]=\s*)[\w\->.]*->(\w+)\s*\(", body):
            for func in hooks.get(field, ()):
                targets.update((p, func) for p in by_name.get(func, []))
        calls[key] = targets

    codes = {key: set(c) for key, c in direct.items()}
    changed = True
    while changed:
        changed = False
        for key, targets in calls.items():
            for t in targets:
                extra = codes.get(t, set()) - codes[key]
                if extra:
                    codes[key] |= extra
                    changed = True
    merged = {}
    for (path, name), c in codes.items():
        if name in globals_ and path in globals_[name]:
            merged.setdefault(name, set()).update(c)
    return merged


def header_lists():
    """{function: set of codes} for each public function whose comment says
    what it returns."""
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    errors = error_codes()
    lists = {}
    for m in re.finditer(r"(/\*\*?(?:(?!\*/).)*\*/)\s*NQ_API\b[^(;]*?\b(nq_\w+)\s*\(", text, re.S):
        comment, name = m.group(1), m.group(2)
        if "Returns 0" in comment:
            lists[name] = set(CODE.findall(comment)) & errors
    return lists


class ErrorLists(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.code = returned_codes()
        cls.header = header_lists()

    def test_lists_were_read(self):
        # A check that reads nothing proves nothing.
        for name in ("nq_count", "nq_job_create", "nq_job_solve", "nq_check_settings"):
            self.assertIn(name, self.header)
            self.assertIn(name, self.code)
        self.assertIn("NQ_EJOURNAL_BUSY", self.code["nq_count"])
        self.assertGreaterEqual(len(error_codes()), 14)

    def test_every_returned_code_is_listed(self):
        bad = []
        for name, listed in sorted(self.header.items()):
            for code in sorted(self.code.get(name, set()) - listed):
                if (name, code) not in NOT_RETURNED:
                    bad.append(f"{name} can return {code}, which its comment does not list")
        self.assertEqual(bad, [], "\n" + "\n".join(bad))

    def test_every_listed_code_can_be_returned(self):
        bad = []
        for name, listed in sorted(self.header.items()):
            self.assertIn(name, self.code, f"{name}: no definition found")
            for code in sorted(listed - self.code[name]):
                bad.append(f"{name}'s comment lists {code}, which the code never returns")
        self.assertEqual(bad, [], "\n" + "\n".join(bad))


if __name__ == "__main__":
    SRC, HEADER = sys.argv[1:3]
    del sys.argv[1:3]
    unittest.main(verbosity=2)
