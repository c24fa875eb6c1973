"""The source tree's layers by what the code calls, not only what it includes.

Run by meson as `python3 test_calls.py SRC_DIR BUILD_SRC_DIR PUBLIC_HEADER`.
test_layers.py checks #include lines; but every layer may include the
public header, so a call from a lower layer into a public function of a
higher one (an engine creating a job through the API) passes that check.
This one reads the built objects instead: `nm` on every object under
BUILD_SRC_DIR gives the global symbols each source file defines and uses,
which maps every call (or data reference) to the file and layer that
defines it.  Checks that

* each layer uses only symbols of its own layer and of the layers it may
  include (test_layers.LAYERS); the layers above the library (cli, mpi)
  may also call any public function of the header,
* no chain of such uses leads from a file back to itself (a circle between
  files, even within one layer), except the pairs in ALLOWED.

Static functions are local to their file and are not seen; that is fine,
they cannot cross a file.  Exits 77 (skipped) where `nm` is missing or the
objects hold no symbols it can read (an LTO build's intermediate code).
"""
import os
import re
import shutil
import subprocess
import sys
import unittest

import test_layers

SRC = BUILD = HEADER = None

# Edges that are known and left for now: "caller file -> callee file".
ALLOWED = {
}

PUBLIC = re.compile(r"^NQ_API\b[^(]*?\b(nq_\w+)\s*\(", re.M)


def layer_of(rel):
    return rel.split("/")[0]


def object_sources():
    """Maps each object under BUILD to the source file under SRC it was
    compiled from.  Meson names an object after its source's path from the
    target's folder, with '/' written as '_' (engines_full_full.c.o)."""
    sources = list(test_layers.sources())
    found = {}
    for root, _, files in os.walk(BUILD):
        for name in files:
            if not name.endswith(".c.o"):
                continue
            target_dir = os.path.relpath(os.path.dirname(root), BUILD).replace(os.sep, "/")
            prefix = "" if target_dir == "." else target_dir + "/"
            stem = name[:-2]  # drop ".o"
            for rel in sources:
                if rel.startswith(prefix) and rel[len(prefix):].replace("/", "_") == stem:
                    found.setdefault(rel, os.path.join(root, name))
    return found


def symbols(obj):
    """(defined, used): the global symbols an object defines and leaves undefined."""
    out = subprocess.run([os.environ.get("NM", "nm"), obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCGSVW":
            defined.add(parts[2])
    return defined, used


def call_graph():
    """{caller file: {callee file: [symbols]}} over the files of SRC."""
    objs = object_sources()
    table = {rel: symbols(obj) for rel, obj in objs.items()}
    owner = {}
    for rel, (defined, _) in table.items():
        for sym in defined:
            owner.setdefault(sym, rel)
    graph = {}
    for rel, (_, used) in table.items():
        edges = graph.setdefault(rel, {})
        for sym in sorted(used):
            callee = owner.get(sym)
            if callee and callee != rel:
                edges.setdefault(callee, []).append(sym)
    return graph


def public_functions():
    with open(HEADER, encoding="utf-8") as f:
        return set(PUBLIC.findall(f.read()))


class Calls(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.graph = call_graph()
        cls.public = public_functions()

    def test_objects_were_found(self):
        # A check that reads no objects proves nothing: the library's own
        # layers must all be there.
        layers = {layer_of(rel) for rel in self.graph}
        for need in ("core", "journal", "run", "engines", "api", "cli"):
            self.assertIn(need, layers)
        edges = sum(len(e) for e in self.graph.values())
        self.assertGreater(edges, 50, "too few calls between files were read")
        self.assertIn("nq_job_create", self.public)

    def test_allowed_edges_still_exist(self):
        # An exemption whose call is gone must leave the list with it.
        for edge in sorted(ALLOWED):
            caller, callee = edge.split(" -> ")
            self.assertIn(callee, self.graph.get(caller, {}), f"{edge} no longer exists")

    def test_calls_follow_the_layers(self):
        bad = []
        for caller, edges in sorted(self.graph.items()):
            mine = layer_of(caller)
            allowed = test_layers.LAYERS[mine]
            for callee, syms in sorted(edges.items()):
                theirs = layer_of(callee)
                if theirs == mine or theirs in allowed:
                    continue
                if mine in ("cli", "mpi") and all(s in self.public for s in syms):
                    continue
                if f"{caller} -> {callee}" in ALLOWED:
                    continue
                bad.append(f"{caller} ({mine}) uses {', '.join(syms)} of {callee} ({theirs})")
        self.assertEqual(bad, [], "\n" + "\n".join(bad))

    def test_no_circle_between_files(self):
        graph = {caller: [c for c in edges if f"{caller} -> {c}" not in ALLOWED]
                 for caller, edges in self.graph.items()}
        state, circles = {}, []

        def visit(node, trail):
            state[node] = "open"
            for nxt in sorted(graph.get(node, [])):
                if state.get(nxt) == "open":
                    loop = trail + [node, nxt]
                    circles.append(" -> ".join(loop[loop.index(nxt):]))
                elif nxt not in state:
                    visit(nxt, trail + [node])
            state[node] = "done"

        for node in sorted(graph):
            if node not in state:
                visit(node, [])
        self.assertEqual(circles, [], "calls go round:\n" + "\n".join(circles))


def main():
    global SRC, BUILD, HEADER
    SRC, BUILD, HEADER = sys.argv[1:4]
    del sys.argv[1:4]
    test_layers.SRC = SRC
    if not shutil.which(os.environ.get("NM", "nm")):
        print("nm not found: skipped")
        sys.exit(77)
    objs = object_sources()
    defined = set()
    for obj in objs.values():
        defined |= symbols(obj)[0]
    if not defined or any(sym.startswith("__gnu_lto") for sym in defined):
        print("the objects hold intermediate code (LTO), not symbols to read: skipped")
        sys.exit(77)
    unittest.main(verbosity=2)


if __name__ == "__main__":
    main()
