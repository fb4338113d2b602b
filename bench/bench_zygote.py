"""What the zygote saves, side by side with another checkout (say today's main) in one run: whole trees in a cgroup.

Each round runs, for this checkout and the baseline, interleaved and each in a fresh cgroup of its own (so every process
counts, the zygote's and every worker's included, and a zygote is never shared between the two):

- ``grade x K``: K ``grade`` commands one after another, as a script of grades or the suite runs them; CPU and wall per
  grade (the zygote starts with the first and serves the rest);
- ``grade-all``: one ``grade-all --jobs 1`` on ``--copies`` copies of the reference; CPU and wall per submission (the
  zygote starts with it: one import saved at most);
- the yardstick, ``python -c "import torch"``.

Medians over ``--rounds``. Prints figures, never judges.

``--user UID`` (root only) grades as that unprivileged uid without bubblewrap, as a staff member grades as themselves:
both trees are copied to a folder the uid owns and run with a Python it can read (``tests/hostile/modes.py``).

Run: .venv/bin/python bench/bench_zygote.py --baseline /tmp/base [--rounds 5] [--grades 5] [--copies 8] [--user UID]
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
import uuid
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_speed import PY, cpu_meter  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hostile.modes import chown_tree, user_python  # noqa: E402 - the suite's user modes: a Python a uid can read


def in_one_cgroup(commands: list[tuple[list[str], Path]], env: dict, user: list[str] = ()) -> tuple[float, float, int]:
    """Wall and CPU seconds of ``commands`` run one after another in one fresh cgroup (as ``user`` runs them, a prefix
    that drops to another uid), and the worst exit status."""
    with cpu_meter() as (prefix, used):
        prefix = prefix + list(user)
        start, worst = time.perf_counter(), 0
        for cmd, cwd in commands:
            worst = max(worst, subprocess.run(prefix + cmd, cwd=cwd, env=env, capture_output=True).returncode)
        wall = time.perf_counter() - start
        time.sleep(0.05)
        return wall, used(), worst


def prepare(root: Path, tmp: Path, copies: int) -> tuple[Path, Path]:
    tmp.mkdir(parents=True)
    sub = tmp / "reference.zip"
    with zipfile.ZipFile(sub, "w") as zf:
        for f in sorted((root / "reference").glob("*.py")):
            zf.write(f, f.name)
    subs = tmp / "subs"
    for i in range(copies):
        shutil.copytree(root / "reference", subs / f"copy{i:03d}", ignore=shutil.ignore_patterns("__pycache__"))
    return sub, subs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--grades", type=int, default=5)
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--user", type=int, default=None, help="grade as this uid, without bubblewrap (root only)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_")}
    trees = {"this": ROOT, "baseline": args.baseline.resolve()}
    figures: dict[str, list[tuple[float, float, int]]] = {}
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp_name:
        tmp = Path(tmp_name)
        python, user = PY, []
        if args.user is not None:
            python, env, trees = as_user(args.user, tmp, trees, env)
            user = ["setpriv", f"--reuid={args.user}", f"--regid={args.user}", "--clear-groups"]
        work = {label: prepare(root, tmp / label, args.copies) for label, root in trees.items()}
        if args.user is not None:
            chown_tree(tmp, args.user)
        for label, root in trees.items():  # warm-up: expected values recorded, bytecode compiled
            sub, _subs = work[label]
            in_one_cgroup([([python, "-m", "autograder", "grade", str(sub), "--out", str(tmp / "w.json"), "-q"], root)], env,
                          user)
        for round_ in range(args.rounds):
            for label, root in trees.items():
                sub, subs = work[label]
                grades = [([python, "-m", "autograder", "grade", str(sub), "--out", str(tmp / f"{label}.json"), "-q"],
                           root) for _ in range(args.grades)]
                wall, cpu, code = in_one_cgroup(grades, env, user)
                figures.setdefault(f"grade x {args.grades} [{label}], per grade", []).append(
                    (wall / args.grades, cpu / args.grades, code))
                out = tmp / f"out-{uuid.uuid4().hex[:8]}" / "grades.csv"
                out.parent.mkdir()
                if args.user is not None:
                    chown_tree(out.parent, args.user)
                wall, cpu, code = in_one_cgroup(
                    [([python, "-m", "autograder", "grade-all", str(subs), "--out", str(out), "--jobs", "1"], root)], env,
                    user)
                figures.setdefault(f"grade-all --jobs 1 [{label}], per submission", []).append(
                    (wall / args.copies, cpu / args.copies, code))
            figures.setdefault("import torch", []).append(in_one_cgroup([([PY, "-c", "import torch"], ROOT)], env))
            print(f"round {round_ + 1} done", file=sys.stderr, flush=True)
    torch_cpu = statistics.median(v[1] for v in figures["import torch"])
    print(f"{'command':50} {'wall s':>8} {'CPU s':>8} {'CPU/torch':>10}  exit")
    for name, values in figures.items():
        wall, cpu = statistics.median(v[0] for v in values), statistics.median(v[1] for v in values)
        print(f"{name:50} {wall:8.2f} {cpu:8.2f} {cpu / torch_cpu:10.2f}  {max(v[2] for v in values)}")
    for kind in (f"grade x {args.grades}", "grade-all --jobs 1"):
        this = [v for name, v in figures.items() if name.startswith(kind) and "[this]" in name][0]
        base = [v for name, v in figures.items() if name.startswith(kind) and "[baseline]" in name][0]
        print(f"{kind}: CPU {statistics.median(v[1] for v in this) / statistics.median(v[1] for v in base):.2f}x, "
              f"wall {statistics.median(v[0] for v in this) / statistics.median(v[0] for v in base):.2f}x the baseline's")


def as_user(uid: int, tmp: Path, trees: dict[str, Path], env: dict) -> tuple[str, dict, dict[str, Path]]:
    """A Python ``uid`` can run, its environment (no bubblewrap, a home and a temporary folder of its own), and copies
    of ``trees`` it can read."""
    tmp.chmod(0o755)
    python, python_env = user_python(tmp / "py", uid)
    copies = {}
    for label, root in trees.items():
        for name in ("autograder", "assignments", "reference"):
            shutil.copytree(root / name, tmp / f"tree-{label}" / name, ignore=shutil.ignore_patterns("__pycache__"))
        copies[label] = tmp / f"tree-{label}"
    (tmp / "home").mkdir()
    (tmp / "tmp").mkdir()
    env = {k: v for k, v in env.items() if not k.startswith(("XDG_", "PYTHON"))}
    env.update(python_env, AUTOGRADER_NO_BWRAP="1", HOME=str(tmp / "home"), TMPDIR=str(tmp / "tmp"))
    return python, env, copies


if __name__ == "__main__":
    main()
