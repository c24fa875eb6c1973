"""The source tree's layers: who may include whom.

Run by meson as `python3 test_layers.py SRC_DIR`.  Internal headers are
included by their path from src/ ("run/pool.h"), so the folder of every
include names the layer it reaches into.  Checks that

* each layer includes only the layers below it (the table LAYERS),
* no file outside an engine's folder includes that engine's private
  headers (only engines/engines.h is shared), and
* no chain of includes leads from a file back to itself.

Its companion test_calls.py checks the same table against what the built
objects call.
"""
import os
import re
import sys
import unittest

SRC = None

# layer -> the layers its files may include and call (besides its own folder
# and the public header nqueens/nqueens.h; test_calls.py reads it too).  Data flows one way: api plans and
# calls run; engines plan with run's scheduling model; journal and run
# build on core alone.
LAYERS = {
    "core": set(),
    "journal": {"core"},
    "run": {"core", "journal"},
    "engines": {"core", "run"},
    "api": {"core", "run", "journal", "engines"},
    "cli": set(),
    "mpi": {"core", "run", "journal", "api", "cli"},
    # Not compiled into the library: published counts and an independent
    # search that the tests and nqueens-bench check the library against.
    "reference": set(),
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources():
    for root, _, files in os.walk(SRC):
        for name in files:
            if name.endswith((".c", ".h")):
                path = os.path.join(root, name)
                yield os.path.relpath(path, SRC).replace(os.sep, "/")


def includes(rel):
    with open(os.path.join(SRC, rel), encoding="utf-8") as f:
        return INCLUDE.findall(f.read())


class Layers(unittest.TestCase):
    def test_every_folder_is_a_layer(self):
        for rel in sources():
            self.assertIn(rel.split("/")[0], LAYERS, rel)

    def test_includes_follow_the_layers(self):
        for rel in sources():
            layer = rel.split("/")[0]
            for inc in includes(rel):
                if inc == "nqueens/nqueens.h" or "/" not in inc:
                    continue
                target = inc.split("/")[0]
                if target == layer:
                    continue
                self.assertIn(target, LAYERS[layer], f"{rel} includes {inc}")

    def test_engine_headers_stay_private(self):
        for rel in sources():
            mine = rel.split("/")[:2] if rel.startswith("engines/") else None
            for inc in includes(rel):
                parts = inc.split("/")
                if parts[0] != "engines" or inc == "engines/engines.h":
                    continue
                self.assertEqual(parts[:2], mine, f"{rel} includes {inc}, private to {parts[1]}")

    def test_no_include_cycle(self):
        graph = {rel: [i for i in includes(rel) if os.path.exists(os.path.join(SRC, i))]
                 for rel in sources()}
        state = {}

        def visit(node, trail):
            state[node] = "open"
            for nxt in graph.get(node, []):
                if state.get(nxt) == "open":
                    self.fail("include cycle: " + " -> ".join(trail + [node, nxt]))
                if nxt not in state:
                    visit(nxt, trail + [node])
            state[node] = "done"

        for node in graph:
            if node not in state:
                visit(node, [])

    def test_quoted_includes_name_their_layer(self):
        # A bare "pool.h" would hide which layer it comes from; only the
        # public header and files beside the includer (none today) are exempt.
        for rel in sources():
            for inc in includes(rel):
                if inc != "nqueens/nqueens.h":
                    self.assertIn("/", inc, f"{rel} includes {inc} without its folder")


if __name__ == "__main__":
    SRC = sys.argv.pop(1)
    unittest.main(verbosity=2)
