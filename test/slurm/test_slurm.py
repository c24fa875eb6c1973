#!/usr/bin/env python3
"""`nqueens-mpi` under a real Slurm: the README's batch script, srun, and
jobs stopped by Slurm and submitted again.

Run by meson (suite 'slow') as

    bash cluster.sh run python3 test_slurm.py NQUEENS_MPI README.md

so that a one-node cluster is up (SLURM_CONF set) while it runs.  Checks:

* the README's Slurm script, taken from the README itself, submitted with
  the README's `sbatch nqueens.sbatch 17`, prints the known total;
* ranks started by `srun --mpi=pmix` count what `mpiexec` counts, and the
  known totals, for several N, engines, rank and thread counts; `mpiexec`
  inside an allocation (`salloc`) runs on the ranks Slurm gave it;
* `scancel --signal=TERM` (SIGTERM to the ranks alone): the job ends with
  exit code 143, its output says it was interrupted and how to resume, the
  journal holds every subproblem that was done (the resubmitted job resumes
  exactly that many) and the resubmitted job prints the known total;
* a job at its time limit: the script's `--signal=TERM@120` stops it the
  same way before the limit (test-only: `--time=1 --ntasks=1`), and the
  resubmitted job (2 ranks) resumes to the known total;
* plain `scancel` (what a time limit without `--signal` does: SIGTERM to
  every process of the job, srun answering it with SIGKILL to the ranks):
  the resubmitted job still resumes from the journal to the known total.

Every job runs in a fresh temporary submit folder.  The known totals are
read from src/reference/known.h, the published counts.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

NQUEENS_MPI = None
README = None
ENV = None
KNOWN = {}

SCRIPT_NAME = "nqueens.sbatch"
# The commands the README shows, exactly as they are run here.
README_COMMANDS = ["sbatch nqueens.sbatch 17", "scancel --signal=TERM"]
JOB_TIMEOUT = 600


def read_known():
    """known_total[] from src/reference/known.h: {n: total}."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src",
                        "reference", "known.h")
    with open(path) as f:
        text = f.read()
    body = re.search(r"known_total\[\d+\]\s*=\s*\{(.*?)\};", text, re.S).group(1)
    values = [int(v) for v in re.findall(r"(?:UINT64_C\()?(\d+)\)?", body)]
    return {n: v for n, v in enumerate(values) if n > 0}


def readme_section():
    """The lines of the README's '### Slurm' section."""
    with open(README, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = lines.index("### Slurm") + 1
    end = start
    while end < len(lines) and not re.match(r"#{1,3} ", lines[end]):
        end += 1
    return lines[start:end]


def readme_script():
    """The batch script: the section's fenced block that starts with #!."""
    lines = readme_section()
    for i, line in enumerate(lines):
        if line.startswith("```") and i + 1 < len(lines) and lines[i + 1].startswith("#!"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            return "\n".join(lines[i + 1:end]) + "\n"
    raise AssertionError("the README's '### Slurm' section has no batch script")


def slurm(*args, timeout=60):
    """Runs a Slurm command; its stdout, or a failure showing both streams."""
    p = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       env=ENV, timeout=timeout)
    if p.returncode != 0:
        raise AssertionError(f"{' '.join(args)}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return p.stdout


def job_fields(job):
    """`scontrol show job`'s KEY=VALUE fields (values without spaces)."""
    text = slurm("scontrol", "show", "job", str(job))
    return dict(re.findall(r"(\w+)=(\S*)", text))


def cluster_logs():
    """The last lines of the cluster's logs, for a failure message."""
    folder = os.path.dirname(os.environ["SLURM_CONF"])
    text = ""
    for name in ("daemons.out", "slurmctld.log", "slurmd.log"):
        try:
            with open(os.path.join(folder, name)) as f:
                text += f"--- {name}\n" + "".join(f.readlines()[-20:])
        except OSError:
            pass
    return text


def live_fields(job):
    """job_fields, failing at once if Slurm could not launch the job (it then
    requeues it and holds it: waiting would only time out)."""
    fields = job_fields(job)
    if fields.get("Restarts", "0") != "0" or "launch" in fields.get("Reason", "").lower():
        raise AssertionError(f"job {job} could not be launched ({fields.get('Reason')})\n"
                             + cluster_logs())
    return fields


def wait_job(job, limit=JOB_TIMEOUT):
    """Waits until the job has ended; its scontrol fields."""
    deadline = time.time() + limit
    while time.time() < deadline:
        fields = live_fields(job)
        if fields["JobState"] not in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING",
                                      "SUSPENDED", "REQUEUED"):
            return fields
        time.sleep(0.5)
    raise AssertionError(f"job {job} still {fields['JobState']} after {limit} s")


def wait_running(job, limit=120):
    deadline = time.time() + limit
    while time.time() < deadline:
        state = live_fields(job)["JobState"]
        if state == "RUNNING":
            return
        if state not in ("PENDING", "CONFIGURING"):
            raise AssertionError(f"job {job} is {state} before it ran")
        time.sleep(0.2)
    raise AssertionError(f"job {job} did not start in {limit} s")


def wait_records(path, limit=120):
    """Waits until the journal at path holds finished work: it has grown past
    the size it had when it appeared (its header)."""
    deadline = time.time() + limit
    first = None
    while time.time() < deadline:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = None
        if size is not None:
            if first is None:
                first = size
            elif size > first:
                return
        time.sleep(0.2)
    raise AssertionError(f"{path} recorded no finished work in {limit} s")


class Slurm(unittest.TestCase):
    def setUp(self):
        self.started = time.time()
        self.dir = tempfile.mkdtemp(prefix="nq-slurm-job.")
        with open(os.path.join(self.dir, SCRIPT_NAME), "w") as f:
            f.write(readme_script())

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        print(f"{self._testMethodName}: {time.time() - self.started:.1f} s", file=sys.stderr)

    def submit(self, *args):
        """`sbatch [options] nqueens.sbatch ARGS...` in the submit folder,
        without waiting; the job id."""
        out = slurm("sbatch", "--parsable", f"--chdir={self.dir}", *args)
        return int(out.strip().split(";")[0])

    def output(self, job):
        with open(os.path.join(self.dir, f"slurm-{job}.out")) as f:
            return f.read()

    def run_to_end(self, *args):
        """Submits, waits for the end; (scontrol fields, job output)."""
        job = self.submit(*args)
        fields = wait_job(job)
        return fields, self.output(job)

    def assert_total(self, n, text, fields):
        self.assertEqual(fields["JobState"], "COMPLETED", text)
        self.assertEqual(fields["ExitCode"], "0:0", text)
        m = re.search(rf"^N={n}: (\d+) solutions", text, re.M)
        self.assertIsNotNone(m, text)
        self.assertEqual(int(m.group(1)), KNOWN[n], text)

    def resumed(self, text):
        m = re.search(r"\((\d+) resumed from the journal\)", text)
        self.assertIsNotNone(m, text)
        return int(m.group(1))

    def interrupted(self, fields, text):
        """Checks a job stopped by SIGTERM to its ranks: exit code 143, the
        interruption and how to resume in its output; the subproblems done."""
        self.assertEqual(fields["JobState"], "FAILED", text)
        self.assertEqual(fields["ExitCode"], "143:0", text)
        m = re.search(r"nqueens-mpi: interrupted after (\d+) subproblems were done; "
                      r"resume by running it again", text)
        self.assertIsNotNone(m, text)
        return int(m.group(1))

    def test_readme_commands(self):
        text = "\n".join(readme_section())
        for command in README_COMMANDS:
            self.assertIn(command, text)
        self.assertIn("srun --mpi=pmix nqueens-mpi", readme_script())

    def test_readme_job_counts_exactly(self):
        # sbatch nqueens.sbatch 17
        fields, text = self.run_to_end(SCRIPT_NAME, "17")
        self.assert_total(17, text, fields)
        self.assertIn("on 2 ranks", text)

    def test_srun_counts_as_mpiexec(self):
        self.assertIn("pmix", slurm("srun", "--mpi=list"))
        # (n, engine, ranks, threads per rank)
        cases = [(8, "auto", 2, 1), (11, "mirror", 3, 1), (12, "full", 2, 1),
                 (13, "mirror", 1, 2), (14, "mitm", 2, 1), (16, "auto", 2, 1)]
        for n, engine, ranks, threads in cases:
            args = [NQUEENS_MPI, str(n), "-e", engine, "-t", str(threads), "-q"]
            srun = slurm("srun", "--mpi=pmix", "--overcommit", f"--ntasks={ranks}",
                         f"--cpus-per-task={threads}", *args, timeout=300)
            mpiexec = subprocess.run(
                ["mpiexec", "-n", str(ranks), "--oversubscribe", "--bind-to", "none", *args],
                stdin=subprocess.DEVNULL, capture_output=True, text=True, env=ENV, timeout=300)
            self.assertEqual(mpiexec.returncode, 0, mpiexec.stderr)
            with self.subTest(n=n, engine=engine, ranks=ranks, threads=threads):
                self.assertEqual(int(srun), int(mpiexec.stdout), (srun, mpiexec.stdout))
                self.assertEqual(int(srun), KNOWN[n])

    def test_mpiexec_in_an_allocation(self):
        # Open MPI's mpiexec takes its slots from Slurm's environment.
        out = slurm("salloc", "--ntasks=2", "--cpus-per-task=1", "mpiexec", "--bind-to", "none",
                    NQUEENS_MPI, "16", "-t", "1", "--json", timeout=300)
        result = json.loads(out)
        self.assertEqual(result["ranks"], 2, out)
        self.assertEqual(result["total"], KNOWN[16], out)

    def test_scancel_term_then_resubmit(self):
        # sbatch nqueens.sbatch 17 -e mirror; scancel --signal=TERM JOB
        job = self.submit(SCRIPT_NAME, "17", "-e", "mirror")
        wait_running(job)
        wait_records(os.path.join(self.dir, "nqueens-17.journal"))
        slurm("scancel", "--signal=TERM", str(job))
        fields = wait_job(job)
        done = self.interrupted(fields, self.output(job))

        fields, text = self.run_to_end(SCRIPT_NAME, "17", "-e", "mirror")
        self.assert_total(17, text, fields)
        self.assertEqual(self.resumed(text), done, "the journal lost finished work")

    def test_time_limit_then_resubmit(self):
        # Slurm checks time limits (and sends --signal's signal) every 30 s
        # from the controller's start: submit just after a check, so that
        # the next one finds the job counting.
        boot = slurm("scontrol", "show", "config")
        m = re.search(r"BOOT_TIME\s*=\s*(\S+)", boot)
        if m:
            started = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
            time.sleep((32 - (time.time() - started)) % 30)
        job = self.submit("--time=1", "--ntasks=1", SCRIPT_NAME, "18", "-e", "mirror")
        fields = wait_job(job, limit=150)
        self.assertLess(int(fields["TimeLimit"].split(":")[1]), 2, fields)
        done = self.interrupted(fields, self.output(job))
        self.assertGreater(done, 0)

        fields, text = self.run_to_end(SCRIPT_NAME, "18", "-e", "mirror")
        self.assert_total(18, text, fields)
        self.assertIn("on 2 ranks", text)
        self.assertEqual(self.resumed(text), done, "the journal lost finished work")

    def test_plain_scancel_then_resubmit(self):
        job = self.submit(SCRIPT_NAME, "17", "-e", "mirror")
        wait_running(job)
        journal = os.path.join(self.dir, "nqueens-17.journal")
        wait_records(journal)
        slurm("scancel", str(job))
        fields = wait_job(job)
        self.assertEqual(fields["JobState"], "CANCELLED", self.output(job))

        fields, text = self.run_to_end(SCRIPT_NAME, "17", "-e", "mirror")
        self.assert_total(17, text, fields)
        self.assertGreater(self.resumed(text), 0)


def main():
    global NQUEENS_MPI, README, ENV, KNOWN
    if len(sys.argv) < 3:
        print("usage: test_slurm.py NQUEENS_MPI README.md", file=sys.stderr)
        return 2
    NQUEENS_MPI = os.path.abspath(sys.argv[1])
    README = sys.argv[2]
    if "SLURM_CONF" not in os.environ:
        print("test_slurm.py: SLURM_CONF is not set; run it under cluster.sh run",
              file=sys.stderr)
        return 2
    if shutil.which("mpiexec") is None:
        print("test_slurm.py: no mpiexec; skipped", file=sys.stderr)
        return 77
    KNOWN = read_known()
    # The batch script finds nqueens-mpi on PATH, as on an installed system;
    # sbatch passes this environment on to the job.
    ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               PATH=os.path.dirname(NQUEENS_MPI) + os.pathsep + os.environ.get("PATH", ""))
    ENV.pop("OMP_NUM_THREADS", None)
    prog = unittest.main(argv=sys.argv[:1], exit=False, verbosity=2)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
