"""What one test costs the machine beyond the student's own code: the worker's fork, the module's process and its end,
the reset and the grader's checks.

Runs ``--tests`` cycles of import + one call + reset of the reference's ``shift_matrix`` module in one worker (as the
grader runs tests) and prints the CPU each cycle took: the grader's own process and the worker's first process with
every process it reaped (its /proc stat counts them, also inside bubblewrap, where the grader's rusage does not).
Also prints the first process's anonymous memory and how much of it is in huge pages, and the median wall of each
step the grader waits for (the import, the call, the reset).

Run: .venv/bin/python bench/bench_test_cycle.py [--tests 100] [--rounds 3]   (AUTOGRADER_NO_BWRAP=1: without bubblewrap)
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.sandbox.session import WorkerSession  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and of the children it reaped."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def memory_kb(pid: int) -> dict[str, int]:
    found = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("Anonymous", "AnonHugePages", "Rss"):
                found[key] = int(rest.split()[0])
    with open(f"/proc/{pid}/maps") as f:
        found["mappings"] = sum(1 for _ in f)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    session = WorkerSession(memory_mb=1024, start_now=True)
    try:
        folder = session.stage({"shift_matrix": (ROOT / "reference" / "shift_matrix.py").read_bytes()})
        session.switch(folder)
        session.call("shift_matrix", "shift_matrix", (8,), {}, 30, "warm-up")  # the first import and call, then settle
        session.fresh("shift_matrix")
        time.sleep(1)
        first = session._worker.host_pid
        print("first process:", memory_kb(first))
        per_test, phases = [], {"import": [], "call": [], "reset": []}
        for _ in range(args.rounds):
            worker0, grader0, wall0 = tree_cpu(first), own_cpu(), time.perf_counter()
            for _ in range(args.tests):
                t0 = time.perf_counter()
                session.import_module("shift_matrix", 30)
                t1 = time.perf_counter()
                session.call("shift_matrix", "shift_matrix", (8,), {}, 30, "shift_matrix(8)")
                t2 = time.perf_counter()
                session.fresh("shift_matrix")
                t3 = time.perf_counter()
                for name, seconds in zip(phases, (t1 - t0, t2 - t1, t3 - t2)):
                    phases[name].append(seconds)
            worker, grader, wall = tree_cpu(first) - worker0, own_cpu() - grader0, time.perf_counter() - wall0
            per_test.append((worker, grader, wall))
            print(f"per test: worker {worker / args.tests * 1e3:.1f} ms CPU, grader {grader / args.tests * 1e3:.1f} ms CPU, "
                  f"wall {wall / args.tests * 1e3:.1f} ms")
        # Wall of each step as the grader waits for it: the import forks the module's process and imports the module in it,
        # the reset ends that process and its leftovers, wipes scratch and checks /proc (where overlapping would save).
        print("median wall per step: " + ", ".join(f"{name} {statistics.median(t) * 1e3:.1f} ms" for name, t in phases.items()))
        print("median per test: " + ", ".join(f"{name} {statistics.median(t[i] for t in per_test) / args.tests * 1e3:.1f} ms"
                                             for i, name in enumerate(("worker CPU", "grader CPU", "wall"))))
        print("first process:", memory_kb(first), "restarts:", session.restarts)
    finally:
        session.close()


if __name__ == "__main__":
    main()
