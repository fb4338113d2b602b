"""The speed targets side by side in one run: `grade`, `check` and portable `check` against `python -c "import torch"`,
and `grade-all --jobs 2` against what its CPU allows. Wall AND CPU time of the whole process tree; medians.

Every command runs ``--repeat`` times (after one warm-up), interleaved, so drift on a shared machine hits all alike;
ratios are of medians. CPU is the whole tree's: read from a cgroup of its own (cgroup v2 or v1's cpuacct, as root),
which also counts processes nobody reaps (a worker under bubblewrap); elsewhere it falls back to the rusage of reaped
children and says so. ``--baseline DIR`` also times another checkout (say, ``git worktree add /tmp/base main``) with
the same commands in the same run, so a change is measured beside what it changes.

Targets (the yardstick, importing torch, is what every run must pay): grade <= 1.3x the yardstick, check <= 1.0x,
portable check <= 2.0x; `grade-all --jobs 2` at >= 0.9 x 2 cores x 60 s / (CPU seconds of one `grade`) submissions
per minute. With ``--baseline``, `grade-all`'s CPU per submission is also given as a ratio to the baseline's. Prints
figures, never judges.

Run: .venv/bin/python bench/bench_speed.py [--repeat 5] [--copies 8] [--grade-all-runs 3] [--grade-all-jobs 2] [--baseline DIR] [--floors]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
CGROUP_ROOTS = (Path("/sys/fs/cgroup/cpuacct"), Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))


def _cgroup_base() -> tuple[Path, str] | None:
    """A writable place for cgroups of our own, and the file that holds their CPU nanoseconds/microseconds."""
    for base in CGROUP_ROOTS:
        if (base / "cpuacct.usage").exists() and os.access(base, os.W_OK):
            return base, "cpuacct.usage"
        if (base / "cgroup.controllers").exists() and os.access(base, os.W_OK):
            return base, "cpu.stat"
    return None


def group_cpu_seconds(group: Path, kind: str) -> float:
    """The CPU seconds the processes of cgroup ``group`` used so far (``kind``: the file ``_cgroup_base`` named)."""
    if kind == "cpuacct.usage":
        return int((group / kind).read_text()) / 1e9
    return int(dict(line.split() for line in (group / kind).read_text().splitlines())["usage_usec"]) / 1e6


@contextlib.contextmanager
def cpu_meter() -> Iterator[tuple[list[str], callable]]:
    """(a prefix that runs a command inside a fresh cgroup, a function giving the CPU seconds it used so far)."""
    found = _cgroup_base()
    if found is None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        yield [], lambda: ((after := resource.getrusage(resource.RUSAGE_CHILDREN)).ru_utime - before.ru_utime
                           + after.ru_stime - before.ru_stime)
        return
    base, kind = found
    group = base / f"bench-speed-{uuid.uuid4().hex[:12]}"
    group.mkdir()
    try:
        yield ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh"], lambda: group_cpu_seconds(group, kind)
    finally:
        remove_group(group)


def remove_group(group: Path) -> None:
    """Remove a cgroup of ours once the command's stragglers left; what stays after a second is waiting for more work
    (a zygote that leaves when idle) and is ended."""
    for attempt in range(50):
        try:
            group.rmdir()
            return
        except OSError:
            if attempt == 10:
                for pid in (group / "cgroup.procs").read_text().split():
                    with contextlib.suppress(OSError):
                        os.kill(int(pid), 9)
            time.sleep(0.1)


def run(cmd: list[str], cwd: Path, env: dict) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds of the whole tree, exit status."""
    with cpu_meter() as (prefix, used):
        start = time.perf_counter()
        done = subprocess.run(prefix + cmd, cwd=cwd, env=env, capture_output=True)
        wall = time.perf_counter() - start
        time.sleep(0.05)  # leftovers the command did not wait for finish leaving
        return wall, used(), done.returncode


def handout_with_reference(root: Path, tmp: Path) -> Path:
    """``root``'s students' handout, unpacked, with the reference solutions in place of the stubs."""
    out = tmp / "handout.zip"
    subprocess.run([PY, "-m", "autograder", "handout", "--out", str(out)], cwd=root, check=True, capture_output=True)
    with zipfile.ZipFile(out) as zf:
        zf.extractall(tmp / "handout")
    (folder,) = (tmp / "handout").iterdir()
    for f in (root / "reference").glob("*.py"):
        shutil.copy(f, folder / "student_template" / f.name)
    return folder


def test_counts(root: Path, env: dict) -> tuple[int, int]:
    """(every test, the public tests) of the assignment in ``root``."""
    code = ("from autograder.model import manifest; from autograder.grading import runner; a = manifest.load(); "
            "print(sum(len(runner.load_tests(p, True)) for p in a.problems), sum(len(runner.load_tests(p, False)) for p in a.problems))")
    out = subprocess.run([PY, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]), int(out[1])


def floors(root: Path, env: dict) -> dict[str, tuple[list[str], Path, dict]]:
    """The least `grade` and `check` can take with a fresh process per test (bench/floor_of_a_run.py)."""
    every, public = test_counts(root, env)
    floor = [PY, str(ROOT / "bench" / "floor_of_a_run.py"), "--tests"]
    return {f"floor of grade ({every})": (floor + [str(every)], root, env), f"floor of check ({public})": (floor + [str(public)], root, env)}


def commands(root: Path, tmp: Path, label: str, env: dict) -> dict[str, tuple[list[str], Path, dict]]:
    tmp.mkdir(parents=True)
    sub = tmp / "reference.zip"
    with zipfile.ZipFile(sub, "w") as zf:
        for f in sorted((root / "reference").glob("*.py")):
            zf.write(f, f.name)
    handout = handout_with_reference(root, tmp)
    tag = f" [{label}]" if label else ""
    return {
        f"grade{tag}": ([PY, "-m", "autograder", "grade", str(sub), "--out", str(tmp / "r.json"), "-q"], root, env),
        f"check{tag}": ([PY, "-m", "autograder", "check"], handout, env),
        f"portable check{tag}": ([PY, "-m", "autograder", "check"], handout, dict(env, AUTOGRADER_PORTABLE="1")),
    }


def grade_all(root: Path, tmp: Path, copies: int, env: dict, jobs: int = 2) -> tuple[float, float]:
    """(submissions per minute, CPU seconds) of `grade-all --jobs JOBS` on ``copies`` copies of the reference."""
    subs = tmp / "subs"
    if not subs.exists():
        for i in range(copies):
            shutil.copytree(root / "reference", subs / f"copy{i:03d}", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp / f"out-{uuid.uuid4().hex[:8]}"
    wall, cpu, code = run([PY, "-m", "autograder", "grade-all", str(subs), "--out", str(out / "grades.csv"), "--jobs", str(jobs)], root, env)
    if code:
        print(f"grade-all exited {code}", file=sys.stderr)
    return copies / wall * 60, cpu


def median_pair(values: list[tuple[float, float, int]]) -> tuple[float, float]:
    return statistics.median(v[0] for v in values), statistics.median(v[1] for v in values)


def print_table(figures: dict[str, list[tuple[float, float, int]]]) -> None:
    """Each command's medians and its ratios to the yardstick, as soon as they are known (grade-all comes after)."""
    torch_wall, torch_cpu = median_pair(figures["import torch"])
    print(f"{'command':<26}{'wall s':>8}{'CPU s':>8}{'wall x':>8}{'CPU x':>8}   target   (runs: wall/CPU; exit codes)")
    for name, values in figures.items():
        wall, cpu = median_pair(values)
        target = next((t for k, t in (("portable check", "<= 2.0"), ("check", "<= 1.0"), ("grade", "<= 1.3"), ("floor of check", "<= 1.0"),
                                      ("floor of grade", "<= 1.3")) if name.startswith(k)), "")
        codes = sorted({v[2] for v in values})
        print(f"{name:<26}{wall:8.2f}{cpu:8.2f}{wall / torch_wall:8.2f}{cpu / torch_cpu:8.2f}   {target:<8} "
              f"({' '.join(f'{w:.2f}/{c:.2f}' for w, c, _ in values)}; {codes})")
    print(f"load average now {os.getloadavg()[0]:.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--copies", type=int, default=8, help="copies of the reference for grade-all (0: skip it)")
    parser.add_argument("--grade-all-runs", type=int, default=3, help="runs of grade-all per checkout (medians)")
    parser.add_argument("--grade-all-jobs", type=int, default=2, help="grade-all's --jobs (the throughput target is for 2)")
    parser.add_argument("--baseline", type=Path, help="another checkout to time beside this one")
    parser.add_argument("--floors", action="store_true", help="also time the least `grade` and `check` can take with a fresh "
                        "process per test: the worker's start and as many bare test cycles (bench/floor_of_a_run.py)")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_PORTABLE", "PYTHONPATH", "AUTOGRADER_ROOT")}
    roots = {"": ROOT} if args.baseline is None else {"this": ROOT, "baseline": args.baseline.resolve()}
    load_before = os.getloadavg()
    print(f"cores {os.cpu_count()}; load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f};"
          f" CPU from {'a cgroup per run' if _cgroup_base() else 'rusage of reaped children (a worker nobody reaps is missed)'}",
          flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        runs = {"import torch": ([PY, "-c", "import torch"], ROOT, env)} | (floors(ROOT, env) if args.floors else {})
        for label, root in roots.items():
            runs |= commands(root, tmp / (label or "this"), label, env)
        for cmd, cwd, e in runs.values():  # warm-up: caches of recorded values, page cache
            run(cmd, cwd, e)
        figures: dict[str, list[tuple[float, float, int]]] = {name: [] for name in runs}
        rates: dict[str, list[tuple[float, float]]] = {label: [] for label in roots}
        for _ in range(args.repeat):
            for name, (cmd, cwd, e) in runs.items():
                figures[name].append(run(cmd, cwd, e))
        print_table(figures)
        for _ in range(args.grade_all_runs if args.copies else 0):
            for label, root in roots.items():
                rates[label].append(grade_all(root, tmp / (label or "this"), args.copies, env, args.grade_all_jobs))
    per_sub: dict[str, float] = {}
    for label, values in rates.items():
        if not values:
            continue
        tag = f" [{label}]" if label else ""
        grade_cpu = median_pair(figures[f"grade{tag}"])[1]
        allowed = 0.9 * 2 * 60 / grade_cpu
        rate = statistics.median(r for r, _ in values)
        per_sub[label] = statistics.median(c for _, c in values) / args.copies
        target = (f"; target 0.9 x 2 x 60 / {grade_cpu:.2f} s = {allowed:.1f}/min: {rate / allowed:.2f} of it"
                  if args.grade_all_jobs == 2 else "")
        print(f"grade-all --jobs {args.grade_all_jobs}{tag}: {rate:.1f} submissions/min over {args.copies} copies "
              f"({', '.join(f'{r:.1f}' for r, _ in values)}); CPU {per_sub[label]:.2f} s per submission "
              f"({', '.join(f'{c / args.copies:.2f}' for _, c in values)}){target}")
    if per_sub.get("this") and per_sub.get("baseline"):
        print(f"grade-all CPU per submission: {per_sub['this'] / per_sub['baseline']:.2f} x the baseline's")
    load_after = os.getloadavg()
    print(f"load average at the end {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} (2 cores: above 2 means others were running)")


if __name__ == "__main__":
    main()
