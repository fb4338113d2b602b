"""Throughput of `grade-all` on copies of the reference, against the bare compute of the tests.

Run: .venv/bin/python bench/bench_grade_all.py [--copies 40] [--repeat 3]. Measures submissions per minute
with --jobs 1 and --jobs 2 (medians of interleaved runs), and the time of running every test of every problem in-process on
the reference (no sandbox, no worker start-up), then prints the ratios.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.expected.store import decode  # noqa: E402
from autograder.grading import runner  # noqa: E402
from autograder.model import manifest, paths  # noqa: E402
from autograder.sandbox.session import StudentCallError  # noqa: E402
from autograder.sandbox.worker import metering  # noqa: E402
from autograder.staff import recording, solutions  # noqa: E402
from autograder.testkit import calls  # noqa: E402


class _LocalFunction:
    """The reference's function run in this process, with results in the same plain form as the sandbox's."""

    def __init__(self, module: str, func: str) -> None:
        self.module, self.func = module, func

    def __call__(self, *args, **kwargs):
        impl = getattr(solutions.reference(self.module), self.func)
        try:
            return decode(recording._run(impl, args, kwargs))
        except Exception as exc:  # noqa: BLE001 - reported as the sandbox reports it
            shown = calls.describe_call(self.module, self.func, args, kwargs)
            raise StudentCallError(f"{shown} raised {type(exc).__name__}: {exc}", "raised") from None

    def metered(self, args, kwargs, meter):
        """As the worker meters a call, in this process (never under a memory cap)."""
        impl = getattr(solutions.reference(self.module), self.func)
        options = {k: v for k, v in meter.items() if k != "memory_mb"}
        value = self(*args, **kwargs)
        return value, metering.metered(lambda: recording._run(impl, args, kwargs), (), {}, options)[1]


class _LocalModule:
    def __init__(self, module: str) -> None:
        self._module = module

    def __getattr__(self, func: str) -> _LocalFunction:
        if func.startswith("__"):
            raise AttributeError(func)
        return _LocalFunction(self._module, func)


def bare_compute_seconds() -> tuple[float, int]:
    """Every test (public and hidden) of every problem against the in-process reference; (seconds, failures)."""
    import torch

    torch.set_num_threads(1)  # as in the sandbox worker
    assignment = manifest.load()
    tests = {p.module: runner.load_tests(p, include_hidden=True) for p in assignment.problems}
    for module in assignment.modules:
        solutions.reference(module)  # import cost is not test compute
    start = time.perf_counter()
    failures = 0
    for module, specs in tests.items():
        env = {module: _LocalModule(module)}
        failures += sum(not runner.run_test(spec, env, module).passed for spec in specs)
    return time.perf_counter() - start, failures


def grade_all_rate(subs: Path, out: Path, jobs: int, copies: int) -> float:
    """Submissions per minute of a fresh `grade-all` run."""
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_ROOT"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(subs), "--out", str(out / "grades.csv"), "--jobs", str(jobs)],
                   cwd=ROOT, env=env, check=True, capture_output=True)
    return copies / (time.perf_counter() - start) * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=40, help="copies of the reference to grade (default: 40)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each --jobs setting, interleaved; medians are reported (default: 3)")
    args = parser.parse_args()
    bare, failures = bare_compute_seconds()
    print(f"bare test compute: {bare:.2f} s ({failures} failures); now grade-all ...", file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        for i in range(args.copies):
            shutil.copytree(paths.REFERENCE, subs / f"copy{i:03d}", ignore=shutil.ignore_patterns("__pycache__"))
        runs: dict[int, list[float]] = {1: [], 2: []}
        for r in range(args.repeat):  # interleaved, so drift on a shared machine hits both settings alike
            for jobs in runs:
                runs[jobs].append(grade_all_rate(subs, Path(tmp) / f"out{jobs}-{r}", jobs, args.copies))
        rates = {jobs: statistics.median(values) for jobs, values in runs.items()}
    bare_rate = 60 / bare
    print(f"bare test compute (all tests, all problems, in-process reference): {bare:.2f} s per submission"
          f" = {bare_rate:.1f}/min{'' if not failures else f'  ({failures} tests FAILED in-process)'}")
    for jobs, rate in rates.items():
        print(f"grade-all --jobs {jobs}: {rate:.1f} submissions/min over {args.copies} copies (median of {', '.join(f'{v:.1f}' for v in runs[jobs])})"
              f" = {rate / bare_rate:.2f} x the bare compute rate")
    print(f"--jobs 2 / --jobs 1 speed-up: {rates[2] / rates[1]:.2f} x  (cores: {os.cpu_count()})")


if __name__ == "__main__":
    main()
