"""Where a grade's CPU above its floor goes, test by test: each test's CPU (the grader's, the worker's first process's
and the test processes' it reaped), sorted, heaviest first.

Grades the reference ``--runs`` times in one reusable session (after one run that warms the caches and records the
expected values if they are stale) and splits each run at the moments a test starts, in either pass of the runner: the
CPU from one test's start to the next one's is that test's (its process's fork, import, calls and reset, and its
judging). CPU is read in /proc (the worker's first process and the children it reaped) and in this process's rusage,
as ``bench_grade_all_split.py`` does. After each run, 20 bare test cycles (``floor_of_a_run.py``'s: a fresh process,
one trivial call, its reset) in the same session give the floor of one test: what a test takes above it is its own
work (inputs, calls, checks). Medians of the runs; compare ratios only.

Run: .venv/bin/python bench/bench_test_split.py [--runs 3] [--top 25]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grading import grader  # noqa: E402
from autograder.model import manifest, paths  # noqa: E402
from autograder.sandbox.worker import procfs  # noqa: E402


def grader_cpu() -> float:
    """CPU seconds so far of this process (the grader)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def tree_cpu(session) -> float:  # noqa: ANN001 - a WorkerSession
    """CPU seconds so far of this process and of the worker's first process with the children it reaped."""
    found = procfs.cpu_seconds(session._ensure_ready().host_pid)
    if found is None:
        raise SystemExit("/proc says nothing of the worker's first process")
    return grader_cpu() + sum(found)


def graded_split(sub: Path, assignment: manifest.Assignment, session, tests) -> tuple[dict[str, float], dict[str, float]]:  # noqa: ANN001
    """Each test's CPU seconds in one grading run of ``sub``, in all and the grader's share (keys ``problem/test``)."""
    split: dict[str, float] = defaultdict(float)
    grader_split: dict[str, float] = defaultdict(float)
    current = {"key": "", "since": tree_cpu(session), "grader": grader_cpu()}

    def mark(key: str) -> None:
        now, own = tree_cpu(session), grader_cpu()
        split[current["key"]] += now - current["since"]
        grader_split[current["key"]] += own - current["grader"]
        current.update(key=key, since=now, grader=own)

    original = grader._printing_in

    def printing_in(session_):  # noqa: ANN001, ANN202
        started = original(session_)

        def timed(spec) -> None:  # noqa: ANN001
            mark(f"{spec.file.parent.parent.name}/{spec.name}")
            started(spec)

        return timed

    grader._printing_in = printing_in
    try:
        grader.grade(sub, assignment, purpose=grader.Purpose.GRADING, session=session, tests=tests)
    finally:
        grader._printing_in = original
    mark("")
    split.pop("", None)
    grader_split.pop("", None)
    return split, grader_split


def bare_cycle_cpu(session, cycles: int) -> float:  # noqa: ANN001
    """CPU seconds of one bare test cycle (``floor_of_a_run.py``'s: a fresh process, one trivial call, its reset)."""
    session.switch(session.stage({"shift_matrix": (paths.REFERENCE / "shift_matrix.py").read_bytes()}))
    before = tree_cpu(session)
    for _ in range(cycles):
        session.call("shift_matrix", "shift_matrix", (2,), {}, 30, "shift_matrix(2)")
        session.fresh("shift_matrix")
    return (tree_cpu(session) - before) / cycles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    assignment = manifest.load()
    tests = grader.load_all_tests(assignment)
    runs: list[dict[str, float]] = []
    grader_runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        sub = Path(tmp) / "reference"
        shutil.copytree(paths.REFERENCE, sub, ignore=shutil.ignore_patterns("__pycache__"))
        session = grader.reusable_session(assignment)
        try:
            graded_split(sub, assignment, session, tests)  # warms up (and records, where the records are stale)
            cycles = []
            for _ in range(args.runs):
                split, grader_split = graded_split(sub, assignment, session, tests)
                runs.append(split)
                grader_runs.append(grader_split)
                cycles.append(bare_cycle_cpu(session, 20))
        finally:
            session.close()
    keys = {k for run in runs for k in run}
    medians = {k: statistics.median(run.get(k, 0.0) for run in runs) for k in keys}
    in_grader = {k: statistics.median(run.get(k, 0.0) for run in grader_runs) for k in keys}
    total = sum(medians.values())
    cycle = statistics.median(cycles)
    per_problem: dict[str, float] = defaultdict(float)
    for key, value in medians.items():
        per_problem[key.split("/")[0]] += value
    counts: dict[str, int] = defaultdict(int)
    for key in medians:
        counts[key.split("/")[0]] += 1
    print(f"{len(medians)} tests, {total:.2f} s CPU per run (medians of {args.runs}); a bare test cycle {cycle:.3f} s; "
          f"above {len(medians)} bare cycles: {total - cycle * len(medians):.2f} s, of which the grader's "
          f"{sum(in_grader.values()):.2f} s")
    print("per problem (CPU seconds, above its bare cycles):")
    for problem, value in sorted(per_problem.items(), key=lambda kv: -kv[1]):
        print(f"  {problem:28s} {value:6.2f}  {value - cycle * counts[problem]:6.2f}")
    print(f"heaviest {args.top} tests (CPU seconds: in all, above a bare cycle, the grader's share):")
    for key, value in sorted(medians.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"  {key:72s} {value:6.3f}  {value - cycle:6.3f}  {in_grader[key]:6.3f}")


if __name__ == "__main__":
    main()
