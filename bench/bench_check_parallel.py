"""`check`'s wall time on this tree (problems in parallel, one worker per core) against another tree's, side by side,
and the wall expected at each number of cores from one serial run's per-problem times.

Both trees check the same submissions, the runs interleaved, ``--repeat`` times each; medians and their ratio are
printed (the machine is shared: read ratios measured in one run, never absolute seconds). The expectation per core
count: the worker's start (its torch import, measured here as ``python -c "import torch"``) plus the longest-first
schedule of the serial run's per-problem times over that many workers.

Run: .venv/bin/python bench/bench_check_parallel.py [--against /path/to/main/tree] [--repeat 3] [SUBMISSION ...]
(default: the main branch, exported from git, and the reference solutions)
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grading import check, grader  # noqa: E402
from autograder.grading.observers import Observer  # noqa: E402
from autograder.model import manifest  # noqa: E402

PY = sys.executable


def check_wall(tree: Path, submission: Path, workers: int | None = None) -> float:
    """Seconds of one `check` in ``tree`` (with ``workers``: the same run with that many workers, whatever the load)."""
    command = ([PY, "-m", "autograder", "check", str(submission)] if workers is None else
               [PY, "-c", f"from autograder.grading import check; check.run({str(submission)!r}, workers={workers})"])
    start = time.perf_counter()
    subprocess.run(command, cwd=tree, capture_output=True, check=False)
    return time.perf_counter() - start


class _Clock(Observer):
    def __init__(self) -> None:
        self.started: dict[str, float] = {}
        self.seconds: dict[str, float] = {}

    def problem_started(self, problem) -> None:  # noqa: ANN001 - a manifest Problem
        self.started[problem.module] = time.perf_counter()

    def problem_finished(self, result, report) -> None:  # noqa: ANN001 - the observer's signature
        self.seconds[result.module] = time.perf_counter() - self.started[result.module]


def serial_profile(submission: Path) -> tuple[float, dict[str, float]]:
    """A worker's start (to the end of a first, small problem) and each problem's seconds in one serial self-check on
    a worker already started."""
    assignment = manifest.load()
    session = check.open_session(assignment)
    try:
        start = time.perf_counter()
        grader.grade(submission, assignment, grader.Purpose.SELF_CHECK, modules=[assignment.modules[1]], session=session)
        started = time.perf_counter() - start
        clock = _Clock()
        grader.grade(submission, assignment, grader.Purpose.SELF_CHECK, observers=[clock], session=session)
    finally:
        if session is not None:
            session.close()
    return started, clock.seconds


def expected_wall(seconds: list[float], workers: int, start: float) -> float:
    """The worker's start plus the longest-first schedule of ``seconds`` over ``workers``."""
    loads = [0.0] * workers
    for each in sorted(seconds, reverse=True):
        loads[loads.index(min(loads))] += each
    return start + max(loads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("submissions", nargs="*", type=Path, default=[ROOT / "reference"])
    parser.add_argument("--against", type=Path, help="the other tree (default: the main branch, exported from git)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        other = args.against
        if other is None:
            other = Path(tmp) / "main"
            other.mkdir()
            archive = subprocess.run(["git", "archive", "main"], cwd=ROOT, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(other)], input=archive, check=True)
        start = time.perf_counter()
        subprocess.run([PY, "-c", "import torch"], check=True)
        torch_import = time.perf_counter() - start
        print(f"python -c 'import torch': {torch_import:.2f} s")
        for submission in args.submissions:
            cores = len(os.sched_getaffinity(0))
            walls: dict[str, list[float]] = {"other": [], "this": [], "forced": []}
            for _ in range(args.repeat):
                walls["other"].append(check_wall(other, submission))
                walls["this"].append(check_wall(ROOT, submission))
                walls["forced"].append(check_wall(ROOT, submission, workers=cores))
            theirs = statistics.median(walls["other"])
            print(f"{submission}: check's wall, median of {args.repeat} (load average {os.getloadavg()[0]:.1f} on {cores} cores): "
                  f"other tree {theirs:.2f} s")
            for name, label in (("this", "this tree, workers as the load allows"), ("forced", f"this tree, {cores} workers")):
                mine = statistics.median(walls[name])
                print(f"  {label}: {mine:.2f} s, ratio {mine / theirs:.2f}")
            started, profile = serial_profile(submission)
            print(f"  a worker's start: {started:.2f} s; serial per-problem seconds on a started worker: "
                  + ", ".join(f"{m} {s:.2f}" for m, s in profile.items()))
            print("  expected wall by idle cores (start + longest-first schedule): " + ", ".join(
                f"{k}: {expected_wall(list(profile.values()), k, started):.2f} s" for k in (1, 2, 4, 6)))


if __name__ == "__main__":
    main()
