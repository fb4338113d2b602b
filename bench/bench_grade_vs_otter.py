"""Whole-process time of `grade` and `check` vs importing torch, and of `grade` vs `otter run`, on the reference.

`check` is timed twice: in this checkout and in the students' handout with the reference solutions
copied in; both look expected values up in recorded stores (the checkout's cache is fresh: it is
built once, here, before timing).

Run: .venv/bin/python bench/bench_grade_vs_otter.py [--repeat 5]. Everything is measured side by
side in one run and reported as ratios of medians (the machines are shared and noisy).
Targets: grade <= 1.3 x `python -c "import torch"`; check <= 1.1 x; grade <= 0.5 x otter run.
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
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    # otter imports the zip's plugin from this project (in autograder.gradescope.otter_run)
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return time.perf_counter() - start


def extracted_handout(tmp: Path) -> Path:
    """The students' handout, unpacked, with the reference solutions in place of the stubs."""
    out = tmp / "handout.zip"
    subprocess.run([PY, "-m", "autograder", "handout", "--out", str(out)], cwd=ROOT, check=True, capture_output=True)
    with zipfile.ZipFile(out) as zf:
        zf.extractall(tmp / "handout")
    (root,) = (tmp / "handout").iterdir()
    for f in (ROOT / "reference").glob("*.py"):
        shutil.copy(f, root / "student_template" / f.name)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ag = tmp / "autograder.zip"
        subprocess.run([PY, "-m", "autograder", "build", "--out", str(ag)], cwd=ROOT, check=True, capture_output=True)
        sub = tmp / "reference.zip"
        with zipfile.ZipFile(sub, "w") as zf:
            for f in sorted((ROOT / "reference").glob("*.py")):
                zf.write(f, f.name)
        handout = extracted_handout(tmp)
        cwd = {"otter run": tmp, "check (handout)": handout}
        commands = {
            "grade": [PY, "-m", "autograder", "grade", str(sub), "--out", str(tmp / "r.json"), "-q"],
            "otter run": [PY, "-m", "otter", "run", "-a", str(ag), "-o", str(tmp), str(sub)],
            "check (reference)": [PY, "-m", "autograder", "check", str(ROOT / "reference")],
            "check (handout)": [PY, "-m", "autograder", "check"],
            "import torch": [PY, "-c", "import torch"],
        }
        times: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(args.repeat):
            for name, cmd in commands.items():  # interleaved, so drift hits every command alike
                try:
                    times[name].append(timed(cmd, cwd.get(name, ROOT)))
                except subprocess.CalledProcessError:
                    times[name].append(float("nan"))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{'command':<20} {'median s':>9}   runs")
    for name, values in times.items():
        print(f"{name:<20} {med[name]:9.2f}   {', '.join(f'{v:.2f}' for v in values)}")
    print(f"\ngrade / import torch     = {med['grade'] / med['import torch']:.2f}   (target <= 1.30)")
    print(f"check / import torch     = {med['check (reference)'] / med['import torch']:.2f}   (target <= 1.10)")
    print(f"  in the handout           {med['check (handout)'] / med['import torch']:.2f}")
    print(f"grade / otter run        = {med['grade'] / med['otter run']:.2f}   (target <= 0.50)")


if __name__ == "__main__":
    main()
