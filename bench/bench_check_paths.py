"""Whole-process time of `check` on both worker paths vs `python -c "import torch"`, in the students' handout.

The handout (with the reference solutions in place of the stubs) is checked on Linux's sandbox and on
the portable path (AUTOGRADER_PORTABLE=1: a child Python per module, as on macOS and Windows), the
three commands interleaved, each ``--repeat`` times; ratios of medians (the machines are shared and noisy).
Targets (issue 19): sandbox <= 1.1x, portable <= 1.6x an import of torch.

Run: .venv/bin/python bench/bench_check_paths.py [--repeat 5]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_grade_vs_otter import PY, extracted_handout  # noqa: E402


def timed(cmd: list[str], cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


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
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.repeat):
            for name, (cmd, env) in runs.items():
                times[name].append(timed(cmd, handout, env))
    torch_s = statistics.median(times["import torch"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:18s} median {median:5.2f} s  ({', '.join(f'{v:.2f}' for v in values)})  {median / torch_s:4.2f}x import torch")


if __name__ == "__main__":
    main()
