"""What address-space limit (RLIMIT_AS) a worker needs: to start (import torch), and to grade the reference.

Bisects the worker's ``memory_mb`` twice: the smallest limit at which it starts, and the smallest at
which the reference still gets full marks. Compares them with ``worker_memory.WORKER_START_MB`` and
with the limit the worker gets in Gradescope's default container (768 MB), and prints the worker's
resident memory after its start.

Run: .venv/bin/python bench/bench_worker_memory.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import grading, manifest, paths, worker_memory  # noqa: E402
from autograder.cgroupfs import MemoryLimit  # noqa: E402
from autograder.sandbox.client import WorkerSession  # noqa: E402


def starts(memory_mb: int) -> bool:
    session = WorkerSession(memory_mb=memory_mb, start_now=True)
    try:
        session.start()
        return session._ensure_ready() is not None
    except RuntimeError:
        return False
    finally:
        grading.close_reusable(session)


def resident_after_start(memory_mb: int) -> float:
    session = WorkerSession(memory_mb=memory_mb, start_now=True)
    try:
        return max(_rss_mb(p) for p in _descendants(session._ensure_ready().proc.pid))
    finally:
        grading.close_reusable(session)


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (bubblewrap puts the worker two levels down)."""
    found, todo = [], [pid]
    while todo:
        found.append(todo.pop())
        for task in Path(f"/proc/{found[-1]}/task").iterdir():
            todo += [int(c) for c in (task / "children").read_text().split()]
    return found


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    return 0.0


def reference_full(memory_mb: int) -> bool:
    assignment = manifest.load()
    session = WorkerSession(memory_mb=memory_mb, start_now=True)
    try:
        report = grading.grade(paths.REFERENCE, assignment, session=session)
        return report.points == report.max_points
    except RuntimeError:
        return False
    finally:
        grading.close_reusable(session)


def smallest(ok, low: int, high: int) -> int:
    """The smallest MB in (low, high] for which ``ok`` holds (to 4 MB), assuming it holds at ``high``."""
    while high - low > 4:
        middle = (low + high) // 2
        low, high = (low, middle) if ok(middle) else (middle, high)
    return high


def main() -> None:
    assignment = manifest.load()
    start = smallest(starts, 200, 2048)
    need = smallest(reference_full, start, 2048)
    default = worker_memory.choose(assignment, MemoryLimit(assignment.gradescope.memory_mb, "Gradescope's default"))
    print(f"worker starts (imports torch) with RLIMIT_AS >= {start} MB   (worker_memory.WORKER_START_MB = {worker_memory.WORKER_START_MB})")
    print(f"reference gets full marks with  RLIMIT_AS >= {need} MB   (room above the start: {need - start} MB; "
          f"MIN_ROOM_MB = {worker_memory.MIN_ROOM_MB})")
    print(f"worker resident (anonymous) after its start: {resident_after_start(default.mb):.0f} MB")
    print(f"in Gradescope's default container the worker gets {default.mb} MB: {default.mb - need} MB more than the reference needs")


if __name__ == "__main__":
    main()
