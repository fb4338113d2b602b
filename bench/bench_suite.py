"""Where ``make test``'s time goes: the suite's wall and CPU, and each test file's share (the goal: under ten minutes).

Runs the suite as ``make test`` does (``pytest -n 3 --dist loadfile``, or the arguments given after ``--``) with
``suite_meter.py`` loaded, inside a cgroup of its own where the machine lets us make one (as root), and prints:
the whole run's wall and CPU, how many cores it kept busy, and the files that cost most. Ten minutes on this
machine's cores allow ``600 × cores`` CPU-seconds: a suite over that cannot finish in ten minutes however its
files are spread over the workers.

Run: .venv/bin/python bench/bench_suite.py [--top 20] [-- pytest arguments]
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_speed import _cgroup_base, group_cpu_seconds, remove_group  # noqa: E402

TEN_MINUTES = 600.0


def run(pytest_args: list[str], log: str) -> tuple[int, float, float | None]:
    """(pytest's exit status, wall seconds, CPU seconds of the whole run or None where no cgroup could be made)."""
    env = dict(os.environ, BENCH_SUITE_LOG=log, PYTHONPATH=os.pathsep.join(filter(None, [str(Path(__file__).parent),
                                                                                         os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, "-m", "pytest", "-p", "suite_meter", *pytest_args]
    found = _cgroup_base()
    if found is None:
        start = time.monotonic()
        return subprocess.run(cmd, cwd=ROOT, env=env).returncode, time.monotonic() - start, None
    base, kind = found
    group = base / f"bench-suite-{uuid.uuid4().hex[:12]}"
    group.mkdir()
    env["BENCH_SUITE_CGROUP"] = str(group)
    try:
        start = time.monotonic()
        status = subprocess.run(["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh", *cmd], cwd=ROOT, env=env).returncode
        wall = time.monotonic() - start
        time.sleep(0.5)  # stragglers leaving
        return status, wall, group_cpu_seconds(group, kind)
    finally:
        for sub in sorted(group.iterdir(), reverse=True):
            if sub.is_dir():
                try:
                    sub.rmdir()
                except OSError:
                    pass
        remove_group(group)


def report(log: str, status: int, wall: float, cpu: float | None, top: int) -> None:
    per_file: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for path in glob.glob(f"{log}.*"):
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            row = per_file[record["test"].split("::")[0]]
            row[0] += record["cpu"]
            row[1] += record["wall"]
            row[2] += 1
    cores = os.cpu_count() or 1
    measured = sum(r[0] for r in per_file.values()) or 1e-9
    tests = sum(int(r[2]) for r in per_file.values())
    if not tests:
        print(f"no test ran (pytest's exit status {status}; its messages are above): nothing to measure")
        return
    print(f"{tests} tests; pytest's exit status {status}" + ("" if status == 0 else ": some failed, the figures are of a failed run"))
    print(f"wall {wall:.0f} s; CPU {cpu:.0f} s ({cpu / wall:.2f} of {cores} cores busy on average)" if cpu is not None
          else f"wall {wall:.0f} s; CPU of the whole run not measured (no cgroup could be made: run as root)")
    print(f"ten minutes on {cores} cores allow {TEN_MINUTES * cores:.0f} CPU-s"
          + (f": this run used {cpu / (TEN_MINUTES * cores):.0%} of that" if cpu is not None else ""))
    print(f"\n{'CPU s':>8} {'share':>6} {'wall s':>8} {'tests':>6}  file (its tests' own processes; shared fixtures count for the first test)")
    for name, (file_cpu, file_wall, count) in sorted(per_file.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{file_cpu:8.1f} {file_cpu / measured:6.1%} {file_wall:8.1f} {count:6d}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=20, help="how many files to list (default 20)")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's arguments (default: -q -n 3 --dist loadfile, as make test)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as folder:
        log = str(Path(folder) / "tests")
        status, wall, cpu = run(args.pytest_args or ["-q", "-n", "3", "--dist", "loadfile"], log)
        report(log, status, wall, cpu, args.top)
    sys.exit(status)


if __name__ == "__main__":
    main()
