"""Whole-process time of `check` on both worker paths vs `python -c "import torch"`, in the students' handout.

The handout (with the reference solutions in place of the stubs) is checked on Linux's sandbox and on
the portable path (AUTOGRADER_PORTABLE=1: a child Python per module, as on macOS and Windows), the
three commands interleaved, each ``--repeat`` times; ratios of medians (the machines are shared and noisy), of wall
time and of CPU time (user + system of every process reaped: the portable path's six torch imports show there; under
bubblewrap the worker is not reaped by the grader, so the sandbox's CPU figure leaves it out).
Targets: sandbox <= 1.1x, portable <= 1.6x an import of torch (the one cost a check cannot avoid: a student who checks
often should wait for little else).

Run: .venv/bin/python bench/bench_check_paths.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_grade_vs_otter import PY, extracted_handout  # noqa: E402


def timed(cmd: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, every process it started) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_PORTABLE", "PYTHONPATH", "AUTOGRADER_ROOT")}
    with tempfile.TemporaryDirectory() as tmp:
        handout = extracted_handout(Path(tmp))
        runs = {
            "import torch": ([PY, "-c", "import torch"], base),
            "check (sandbox)": ([PY, "-m", "autograder", "check"], base),
            "check (portable)": ([PY, "-m", "autograder", "check"], dict(base, AUTOGRADER_PORTABLE="1")),
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
        for _ in range(args.repeat):
            for name, (cmd, env) in runs.items():
                times[name].append(timed(cmd, handout, env))
    torch_wall = statistics.median(w for w, _ in times["import torch"])
    torch_cpu = statistics.median(c for _, c in times["import torch"])
    for name, values in times.items():
        wall, cpu = statistics.median(w for w, _ in values), statistics.median(c for _, c in values)
        print(f"{name:18s} wall median {wall:5.2f} s ({', '.join(f'{w:.2f}' for w, _ in values)}) {wall / torch_wall:4.2f}x import torch;"
              f"  CPU median {cpu:5.2f} s {cpu / torch_cpu:4.2f}x")


if __name__ == "__main__":
    main()
