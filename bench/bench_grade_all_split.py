"""Where `grade-all`'s CPU per submission goes, and what a worker's start costs against an import of torch.

Grades ``--copies`` copies of the reference one after another in one reusable session, as each `grade-all` job does, and
prints for each submission the CPU of the grader (this process), of the worker's first process itself (forks, resets,
wipes) and of the processes it forked and reaped (each test's process: the module's import, the calls, its exit). Before
that it starts ``--starts`` workers and prints the CPU of each start (the first process until it is ready: Python, torch,
the layers) beside ``python -c "import torch"`` run as many times. So the share of a submission that a worker's start
(torch's import) could save is measured, not assumed: a job starts its worker once and keeps it.

CPU is read in /proc (the first process's own and its reaped children's), also inside bubblewrap, where the grader's
rusage does not see the worker. Medians; compare ratios only on a shared machine.

Run: .venv/bin/python bench/bench_grade_all_split.py [--copies 4] [--starts 3]   (AUTOGRADER_NO_BWRAP=1: without bubblewrap)
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grading import grader  # noqa: E402
from autograder.model import manifest, paths  # noqa: E402
from autograder.sandbox.worker import procfs  # noqa: E402


def first_process_cpu(pid: int) -> tuple[float, float]:
    """(its own CPU seconds, those of the children it reaped) of process ``pid``."""
    found = procfs.cpu_seconds(pid)
    if found is None:
        raise SystemExit(f"/proc says nothing of the worker's first process ({pid})")
    return found


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def worker_start_cpu(assignment: manifest.Assignment) -> float:
    """CPU seconds of one worker's first process from its start until it is ready (nothing graded)."""
    session = grader.reusable_session(assignment)
    try:
        worker = session._ensure_ready()
        time.sleep(0.5)  # the huge-page collapse runs on a thread after the greeting
        own, reaped = first_process_cpu(worker.host_pid)
        return own + reaped
    finally:
        session.close()


def torch_import_cpu() -> float:
    """CPU seconds of ``python -c "import torch"`` (its rusage, reaped)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    assignment = manifest.load()
    tests = grader.load_all_tests(assignment)
    starts, imports = [], []
    for _ in range(args.starts):  # interleaved: drift on a shared machine hits both alike
        starts.append(worker_start_cpu(assignment))
        imports.append(torch_import_cpu())
    print(f"worker start (first process until ready): {statistics.median(starts):.2f} s CPU; import torch: "
          f"{statistics.median(imports):.2f} s CPU (medians of {args.starts})", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        session = grader.reusable_session(assignment)
        try:
            for i in range(args.copies):
                sub = Path(tmp) / f"copy{i}"
                shutil.copytree(paths.REFERENCE, sub, ignore=shutil.ignore_patterns("__pycache__"))
                worker = session._ensure_ready()
                grader0, (first0, reaped0) = own_cpu(), first_process_cpu(worker.host_pid)
                report = grader.grade(sub, assignment, purpose=grader.Purpose.GRADING, session=session, tests=tests)
                if session._worker is not worker:
                    print(f"copy {i}: the worker was replaced; its figures are left out", flush=True)
                    continue
                first, reaped = first_process_cpu(worker.host_pid)
                rows.append((own_cpu() - grader0, first - first0, reaped - reaped0))
                print(f"copy {i}: {report.points:g} points; CPU grader {rows[-1][0]:.2f} s, first process {rows[-1][1]:.2f} s, "
                      f"test processes {rows[-1][2]:.2f} s; {sum(e.op == 'import' for e in session.exchanges)} test processes",
                      flush=True)
        finally:
            session.close()
    if rows:
        grader_s, first_s, tests_s = (statistics.median(r[i] for r in rows) for i in range(3))
        total = grader_s + first_s + tests_s
        print(f"per submission (medians of {len(rows)}): {total:.2f} s CPU = grader {grader_s:.2f} + first process {first_s:.2f}"
              f" + test processes {tests_s:.2f}; a worker's start, paid once per job, is "
              f"{statistics.median(starts) / total:.2f} x of one submission")


if __name__ == "__main__":
    main()
