"""What room (address space beyond the worker's own imports) the reference needs, and what the worker holds.

The worker caps its address space after importing torch, at what it holds then plus ``memory_mb``, so
it starts whatever the torch build. Bisects the smallest ``memory_mb`` at which the reference still gets
full marks, compares it with ``worker_memory.MIN_ROOM_MB`` and with the room the worker gets in Gradescope's
default container (768 MB), and prints the worker's resident memory after its start.

Run: .venv/bin/python bench/bench_worker_memory.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grading import grader, worker_memory  # noqa: E402
from autograder.model import manifest, paths  # noqa: E402
from autograder.sandbox.session import WorkerSession  # noqa: E402


def starts(memory_mb: int) -> bool:
    session = WorkerSession(memory_mb=memory_mb, start_now=True)
    try:
        session.start()
        return session._ensure_ready() is not None
    except RuntimeError:
        return False
    finally:
        session.close()


def resident_after_start(memory_mb: int) -> float:
    session = WorkerSession(memory_mb=memory_mb, start_now=True)
    try:
        return max(_rss_mb(p) for p in _descendants(session._ensure_ready().proc.pid))
    finally:
        session.close()


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
        report = grader.grade(paths.REFERENCE, assignment, session=session)
        return report.points == report.max_points
    except RuntimeError:
        return False
    finally:
        session.close()


def smallest(ok, low: int, high: int) -> int:
    """The smallest MB in (low, high] for which ``ok`` holds (to 4 MB), assuming it holds at ``high``."""
    while high - low > 4:
        middle = (low + high) // 2
        low, high = (low, middle) if ok(middle) else (middle, high)
    return high


def main() -> None:
    assignment = manifest.load()
    need = smallest(reference_full, 0, 2048)
    default = worker_memory.gradescope_room(assignment)
    print(f"worker starts with any room: {starts(1)} (the cap is set after its imports)")
    print(f"reference gets full marks with a room >= {need} MB   (MIN_ROOM_MB = {worker_memory.MIN_ROOM_MB})")
    print(f"worker resident (anonymous) after its start: {resident_after_start(default.mb):.0f} MB")
    print(f"in Gradescope's default container the worker gets {default.mb} MB of room: {default.mb - need} MB more than the reference needs")

if __name__ == "__main__":
    main()
