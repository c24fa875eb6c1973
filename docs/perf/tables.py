#!/usr/bin/env python3
"""Writes the measured and predicted tables of docs/performance.md and the
speed table of README.md from the nqueens-bench output beside this script.

Run from anywhere (paths are found from this file):

    python3 docs/perf/tables.py            rewrite the generated blocks
    python3 docs/perf/tables.py --check    exit 1 if a block is out of date
    python3 docs/perf/tables.py --measure  rerun every recorded command with
                                           build/bench/nqueens-bench first
                                           (--bench PATH for another binary;
                                           name files to rerun only those)

The data, in docs/perf/:

* NAME.csv: `nqueens-bench --csv` output.  nqueens-bench writes the machine
  header (cpu, cores, compiler, flags, commit, date); the `# command:` lines
  say what produced the rows, so every table can print the command that
  reproduces it.  A file without one is refused.  The `nodes` column of
  files from before nodes left nqueens-bench is ignored.
* NAME.svg beside NAME.csv: the plot of that run; --measure redraws it.
* predict*.txt: `nqueens-bench --predict` output after `# command:`,
  `# commit:` and `# date:` lines.

A case (engine, N, threads) measured in several files is shown from the
newest one, by header date: a figure is replaced, never kept beside the
one that superseded it, and a file none of whose cases is shown any more
makes --check fail (delete it; git keeps it).

Only the blocks between `<!-- tables.py begin: NAME -->` and
`<!-- tables.py end: NAME -->` are rewritten; the prose around them is not.
"""
import argparse
import csv
import datetime
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

PERF = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(PERF))
DOCS = {"docs/performance.md": ("measured", "predicted", "predicted-ranks"),
        "README.md": ("summary",)}
ENGINES = ("plain", "mirror", "full", "mitm")
# Header keys that must agree for two runs to count as the same machine.
MACHINE_KEYS = ("cpu", "cores", "compiler", "flags", "openmp", "OMP_PROC_BIND", "OMP_PLACES")


class DataError(Exception):
    """A data file this script cannot publish; the message names it."""


def read_header(lines, name):
    """Splits the leading '# key: value' lines off `lines`.  Returns the
    header (a dict; `command` is a list, one entry per line) and the rest."""
    header = {"command": []}
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        text = lines[i][1:].strip()
        key, sep, value = text.partition(":")
        if not sep:  # "# nqueens-bench 0.1.0"
            header["tool"] = text
        elif key.strip() == "command":
            header["command"].append(value.strip())
        else:
            header[key.strip()] = value.strip()
        i += 1
    if not header["command"]:
        raise DataError("%s: no '# command:' line says what produced it; add one "
                        "(e.g. '# command: build/bench/nqueens-bench -n 16 -e mirror') "
                        "after the first line" % name)
    if "date" not in header:
        raise DataError("%s: no '# date:' line" % name)
    return header, lines[i:]


class Run:
    """One data file: its header and, for a CSV, its cases."""

    def __init__(self, name, header):
        self.name = name
        self.header = header
        self.cases = {}  # (engine, n, threads) -> dict of figures
        self.shown = False

    @property
    def stem(self):
        return os.path.splitext(self.name)[0]

    def machine(self):
        return tuple(self.header.get(k, "") for k in MACHINE_KEYS)


def number(text):
    return float(text) if text not in ("", None) else None


def load_csv(name):
    with open(os.path.join(PERF, name), encoding="utf-8") as f:
        header, rest = read_header(f.read().splitlines(), name)
    run = Run(name, header)
    for row in csv.DictReader(rest):
        if row["correct"] == "no":
            raise DataError("%s: %s N=%s on %s threads counted %s, not %s" % (
                name, row["engine"], row["n"], row["threads"], row["total"], row["expected"]))
        key = (row["engine"], int(row["n"]), int(row["threads"]))
        case = run.cases.setdefault(key, {
            "median": float(row["case_median"]), "min": float(row["case_min"]),
            "max": float(row["case_max"]), "speedup": number(row["speedup"]),
            "vs_plain": number(row["vs_plain"]), "runs": 0, "peak_kib": None,
            "checked": row["correct"] == "yes", "run": run})
        case["runs"] += 1
        peak = number(row.get("peak_kib"))
        if peak is not None:  # the case's largest run, as nqueens-bench reports it
            case["peak_kib"] = max(case["peak_kib"] or 0, peak)
    return run


def load_predict(name):
    with open(os.path.join(PERF, name), encoding="utf-8") as f:
        header, rest = read_header(f.read().splitlines(), name)
    run = Run(name, header)
    columns = rest[0].split()
    run.rows = [dict(zip(columns, line.split())) for line in rest[1:] if line.strip()]
    return run


def load():
    names = sorted(os.listdir(PERF))
    runs = [load_csv(n) for n in names if n.endswith(".csv")]
    predictions = [load_predict(n) for n in names
                   if n.startswith("predict") and n.endswith(".txt")]
    return runs, predictions


def current_cases(runs):
    """(engine, n, threads) -> the case from the newest run that measured it."""
    best = {}
    for run in sorted(runs, key=lambda r: r.header["date"]):
        best.update(run.cases)
    for case in best.values():
        case["run"].shown = True
    return best


# ---- formatting ----

def seconds(x):
    """Four significant digits, trailing zeros kept (53.60, 0.07745)."""
    if x <= 0:
        return "0"
    decimals = max(0, 3 - math.floor(math.log10(x)))
    return "%.*f" % (decimals, x)


def ratio(x):
    if x is None:
        return "–"
    return "%.1f" % x if x >= 10 else "%.2f" % x


def when(date):
    m = re.match(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d)", date)
    return "%s %s UTC" % m.groups() if m else date


def shown_command(run):
    """The command(s) that reproduce a run's file, as a reader types them."""
    cmds = run.header["command"]
    target = "docs/perf/" + run.name
    if run.name.endswith(".txt"):
        return "`%s > %s`" % (cmds[0], target) if len(cmds) == 1 else \
            ", ".join("`%s`" % c for c in cmds) + " into `%s`" % target
    if len(cmds) == 1:
        return "`%s --csv %s`" % (cmds[0], target)
    return ", ".join("`%s`" % c for c in cmds) + ", rows kept together in `%s`" % target


def machine_text(run):
    h = run.header
    return "%s, %s cores; %s `%s`; %s; OMP_PROC_BIND %s, OMP_PLACES %s" % (
        h.get("cpu", "?"), h.get("cores", "?"), h.get("compiler", "?"), h.get("flags", "?"),
        h.get("openmp", "?"), h.get("OMP_PROC_BIND", "?"), h.get("OMP_PLACES", "?"))


def run_line(run):
    return "commit %s, %s: %s" % (run.header.get("commit", "?"), when(run.header["date"]),
                                  shown_command(run))


def sources_text(runs):
    """Where a table's figures come from: machine, commit, date, command."""
    runs = sorted(set(runs), key=lambda r: r.name)
    out = []
    machines = {r.machine() for r in runs}
    if len(machines) == 1:
        out += ["Machine: %s." % machine_text(runs[0]), ""]
    if len(runs) == 1:
        return out + ["Run: %s." % run_line(runs[0])]
    out += ["Runs (column *from*):", ""]
    for r in runs:
        extra = "" if len(machines) == 1 else " Machine: %s." % machine_text(r)
        out.append("* `%s`: %s.%s" % (r.stem, run_line(r), extra))
    return out


def table(head, rows):
    """A Markdown table; words left-aligned, figures right-aligned."""
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" if h in ("engine", "from") else "---:" for h in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


# ---- the generated blocks ----

def block_measured(cases, predictions):
    out = ["Median wall seconds of `nq_count()` (planning included) over the runs of "
           "each case; every total checked against the known table.  *speedup* is "
           "against 1 thread and *vs plain* against `plain` on 1 thread, both within "
           "the same run.", ""]
    for engine in ENGINES:
        keys = sorted(k for k in cases if k[0] == engine)
        if not keys:
            continue
        runs = [cases[k]["run"] for k in keys]
        several = len(set(runs)) > 1
        head = ["N", "threads", "median s", "min–max s", "runs", "speedup", "vs plain",
                "peak MiB"] + (["from"] if several else [])
        rows = []
        for k in keys:
            c = cases[k]
            peak = "%.1f" % (c["peak_kib"] / 1024) if c["peak_kib"] else "–"
            speedup = ratio(c["speedup"]) if k[2] > 1 else "–"
            vs_plain = ratio(c["vs_plain"]) if engine != "plain" else "–"
            row = [str(k[1]), str(k[2]), seconds(c["median"]),
                   "%s–%s" % (seconds(c["min"]), seconds(c["max"])), str(c["runs"]),
                   speedup, vs_plain, peak]
            rows.append(row + (["`%s`" % c["run"].stem] if several else []))
        out += ["### `%s`" % engine, ""] + table(head, rows) + [""] + sources_text(runs) + [""]
    return out[:-1]


def block_summary(cases, predictions):
    sizes = sorted({k[1] for k in cases if k[0] == "plain"})
    keys = [k for k in cases if k[1] in sizes]
    threads = sorted({k[2] for k in keys})
    runs = [cases[k]["run"] for k in keys]
    several = len(set(runs)) > 1
    head = ["N", "engine"] + ["%d thread%s" % (t, "" if t == 1 else "s") for t in threads] + \
        ["vs plain"] + (["from"] if several else [])
    rows = []
    for n in sizes:
        for engine in ENGINES:
            mine = {k[2]: cases[k] for k in keys if k[:2] == (engine, n)}
            if not mine:
                continue
            cells = [seconds(mine[t]["median"]) if t in mine else "" for t in threads]
            one = mine.get(1)
            vs = ratio(one["vs_plain"]) if one and engine != "plain" else "–"
            from_ = ", ".join(sorted({"`%s`" % c["run"].stem for c in mine.values()}))
            rows.append([str(n), "`%s`" % engine] + cells + [vs] + ([from_] if several else []))
    return ["Median wall seconds; *vs plain* is the speedup over `plain` on 1 thread in "
            "the same run.", ""] + table(head, rows) + [""] + sources_text(runs)


def predict_run(predictions, ranks):
    """The prediction file per thread count (ranks=False) or per ranks x
    threads (ranks=True, the output of --predict --ranks)."""
    for p in predictions:
        if p.rows and ("ranks" in p.rows[0]) == ranks:
            p.shown = True
            return p
    return None


def block_predicted(cases, predictions):
    p = predict_run(predictions, ranks=False)
    if not p:
        return ["(no prediction file)"]
    cols = []
    for r in p.rows:
        col = (r["engine"], int(r["threads"]))
        if col not in cols:
            cols.append(col)
    sizes = sorted({int(r["N"]) for r in p.rows})
    eff = {(r["engine"], int(r["threads"]), int(r["N"])): float(r["pred_eff"]) for r in p.rows}
    head = ["N"] + ["%s %d" % c for c in cols]
    rows = [[str(n)] + ["%.1f%%" % (100 * eff[c + (n,)]) if c + (n,) in eff else ""
                        for c in cols] for n in sizes]
    return ["Predicted pool efficiency (model predictions from unit-cost estimates, "
            "not measurements), for *engine threads*:", ""] + table(head, rows) + \
        ["", "Prediction: %s." % run_line(p)]


def block_predicted_ranks(cases, predictions):
    p = predict_run(predictions, ranks=True)
    if not p:
        return ["(no prediction file)"]
    head = ["engine", "N", "ranks × threads", "split depth", "units", "chunks",
            "predicted", "pessimistic"]
    rows = [["`%s`" % r["engine"], r["N"], "%s × %s" % (r["ranks"], r["threads"]),
             r["depth"], r["units"], r["chunks"], "%.1f%%" % (100 * float(r["pred_eff"])),
             "%.1f%%" % (100 * float(r["eff_low"]))] for r in p.rows]
    return ["Model predictions for `nqueens-mpi`, not measurements:", ""] + \
        table(head, rows) + ["", "Prediction: %s." % run_line(p)]


BLOCKS = {"measured": block_measured, "summary": block_summary,
          "predicted": block_predicted, "predicted-ranks": block_predicted_ranks}


def render(text, doc, cases, predictions):
    """text with every generated block of doc rewritten."""
    for name in DOCS[doc]:
        begin = "<!-- tables.py begin: %s -->" % name
        end = "<!-- tables.py end: %s -->" % name
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        if not pattern.search(text):
            raise DataError("%s: no block '%s' (%s ... %s)" % (doc, name, begin, end))
        body = "\n".join(BLOCKS[name](cases, predictions))
        text = pattern.sub(lambda m: "%s\n%s\n%s" % (begin, body, end), text, count=1)
    return text


# ---- measuring ----

def bench_commit(bench):
    """The commit nqueens-bench was built from (its build's version.h)."""
    try:
        with open(os.path.join(os.path.dirname(bench), "version.h"), encoding="utf-8") as f:
            m = re.search(r'NQ_BENCH_COMMIT "([^"]*)"', f.read())
            if m:
                return m.group(1)
    except OSError:
        pass
    return subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                          capture_output=True, text=True).stdout.strip() or "unknown"


def argv_for(command, bench):
    words = shlex.split(command)
    return [bench] + words[1:]


def measure_csv(name, bench):
    path = os.path.join(PERF, name)
    with open(path, encoding="utf-8") as f:
        commands = read_header(f.read().splitlines(), name)[0]["command"]
    plot = os.path.join(PERF, os.path.splitext(name)[0] + ".svg")
    header, columns, rows = None, None, []
    with tempfile.TemporaryDirectory() as tmp:
        for i, command in enumerate(commands):
            out = os.path.join(tmp, "%d.csv" % i)
            argv = argv_for(command, bench) + ["--csv", out]
            if i == 0 and os.path.exists(plot):
                argv += ["--plot", plot]
            print("tables.py: " + " ".join(shlex.quote(a) for a in argv), file=sys.stderr)
            subprocess.run(argv, cwd=ROOT, check=True)
            # nqueens-bench writes a plain CSV and its header to CSV.meta.
            with open(out + ".meta", encoding="utf-8") as f:
                meta = [l for l in f.read().splitlines() if not l.startswith("# command:")]
            with open(out, encoding="utf-8") as f:
                lines = f.read().splitlines()
            if header is None:
                header, columns = meta, lines[0]
            elif lines[0] != columns:
                raise DataError("%s: its commands wrote different CSV columns" % name)
            rows += lines[1:]
    text = header[:1] + ["# command: " + c for c in commands] + header[1:] + [columns] + rows
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(text) + "\n")


def measure_predict(name, bench):
    path = os.path.join(PERF, name)
    with open(path, encoding="utf-8") as f:
        commands = read_header(f.read().splitlines(), name)[0]["command"]
    output = []
    for command in commands:
        print("tables.py: " + command, file=sys.stderr)
        output.append(subprocess.run(argv_for(command, bench), cwd=ROOT, check=True,
                                     capture_output=True, text=True).stdout.rstrip("\n"))
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = ["# command: " + c for c in commands] + \
        ["# commit: " + bench_commit(bench), "# date: " + date] + output
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(text) + "\n")


def measure(names, bench):
    if not os.access(bench, os.X_OK):
        raise DataError("%s: no nqueens-bench there (build first, or give --bench)" % bench)
    every = sorted(n for n in os.listdir(PERF)
                   if n.endswith(".csv") or (n.startswith("predict") and n.endswith(".txt")))
    names = [os.path.basename(n) for n in names] or every
    for name in names:
        if name not in every:
            raise DataError("%s: not a data file in docs/perf" % name)
    for name in names:
        (measure_csv if name.endswith(".csv") else measure_predict)(name, bench)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="change nothing; exit 1 if a generated block is out of date")
    ap.add_argument("--measure", action="store_true",
                    help="rerun the recorded commands first (minutes to an hour)")
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bench", "nqueens-bench"),
                    help="the nqueens-bench to measure with")
    ap.add_argument("files", nargs="*", help="with --measure: only these data files")
    args = ap.parse_args()
    try:
        if args.measure:
            measure(args.files, args.bench)
        runs, predictions = load()
        cases = current_cases(runs)
        stale = []
        for doc in DOCS:
            path = os.path.join(ROOT, doc)
            with open(path, encoding="utf-8") as f:
                old = f.read()
            new = render(old, doc, cases, predictions)
            if new != old:
                stale.append(doc)
                if not args.check:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(new)
        unused = [r.name for r in runs + predictions if not r.shown]
    except DataError as e:
        print("tables.py: %s" % e, file=sys.stderr)
        return 1
    for name in unused:
        print("tables.py: docs/perf/%s: newer files measure everything it holds; delete it"
              % name, file=sys.stderr)
    if args.check and stale:
        print("tables.py: out of date: %s (run python3 docs/perf/tables.py)" % ", ".join(stale),
              file=sys.stderr)
    if args.check:
        return 1 if stale or unused else 0
    for doc in stale:
        print("tables.py: rewrote %s" % doc, file=sys.stderr)
    return 1 if unused else 0


if __name__ == "__main__":
    sys.exit(main())
