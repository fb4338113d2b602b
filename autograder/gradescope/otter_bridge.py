"""What runs inside otter's Jupyter kernel: proxies for the student's modules, nothing more.

otter executes exactly one notebook or script of the submission folder. The autograder zip
ships ``grade_submission.ipynb``, which takes precedence over the student's ``.py`` files and
calls ``expose()``: the kernel's globals then hold one proxy per module, and otter runs our
test files against them. Student code runs only in the sandboxed worker, as in ``grade``.
"""

from __future__ import annotations

import atexit
from pathlib import Path

from ..expected import records
from ..grading import submission, time_rules, worker_memory
from ..grading.proxy import StudentModule
from ..model import manifest, paths
from ..sandbox.session import WorkerSession

HARNESS_FOLDER = "_autograder_harness"
DRIVER_NOTEBOOK = "grade_submission.ipynb"
SHIPPED = {HARNESS_FOLDER, DRIVER_NOTEBOOK, "tests", ".OTTER_LOG", "__init__.py"}
# On Gradescope: the zip (harness, reference, tests) and the results folder; the sandbox user reads neither.
GRADESCOPE_PRIVATE = (Path("/autograder/source"), Path("/autograder/results"))


def expose(submission_dir: str) -> dict[str, StudentModule]:
    """Stage the student's modules found in ``submission_dir`` and return a proxy per module."""
    assignment = manifest.load()
    records.preload(assignment.modules)  # the recorded values are open before any student code runs
    located = submission.locate(Path(submission_dir), assignment.modules, exclude=SHIPPED)
    # otter copies the zip's files (harness, tests) into the folder it grades: that copy is the grader's too (issue 18)
    private = tuple(p for p in GRADESCOPE_PRIVATE if p.exists()) + (paths.ROOT, Path(submission_dir))
    session = WorkerSession(memory_mb=worker_memory.choose(assignment).mb, private=private)
    session.switch(session.stage(located.sources))
    session.start()
    atexit.register(session.close)
    guard = time_rules.CallGuard(deadline=time_rules.inherited_deadline())
    for p in assignment.problems:
        session.set_budget(p.module, time_rules.problem_budget(p))
    return {p.module: StudentModule(session, p.module, p.limits.call_seconds, guard=guard) for p in assignment.problems}


DRIVER_SOURCE = f'''\
# Autograder driver: exposes sandboxed proxies of the student's modules to otter's tests.
import os as _os
import sys as _sys

_harness = _os.path.abspath(_os.path.join(_os.getcwd(), "..", "source", "files", "{HARNESS_FOLDER}"))
if not _os.path.isdir(_harness):
    raise RuntimeError("autograder harness not found at " + _harness)
_sys.path[:] = [_harness] + [p for p in _sys.path if p not in ("", ".", _os.getcwd())]
from autograder.gradescope.otter_bridge import expose as _expose

globals().update(_expose(_os.getcwd()))
'''


def prepare_run(submission_dir: str, quarantine_dir: str) -> None:
    """Before otter starts on Gradescope: fix the deadline, quarantine extras, tell staff the limits in force (the stdout log)."""
    from ..sandbox import policy

    assignment = manifest.load()
    time_rules.start_clock(assignment.gradescope)
    quarantine_extras(submission_dir, quarantine_dir)
    memory = worker_memory.choose(assignment)
    print(policy.detect().describe())
    print(f"worker memory limit {memory.mb} MB ({memory.reason})")
    if memory.warning:
        print(f"warning: {memory.warning}")
    print(f"time rules: {time_rules.describe(assignment)}", flush=True)


def quarantine_extras(submission_dir: str, quarantine_dir: str) -> list[str]:
    """Move everything but the module files out of ``submission_dir`` (run before otter starts)."""
    import shutil

    root = Path(submission_dir)
    located = submission.locate(root, manifest.load().modules)
    keep = {f"{m}.py" for m in located.sources}
    moved = []
    for entry in sorted(root.iterdir()):
        inside = entry.is_dir() and not entry.is_symlink() and any((entry / k).is_file() for k in keep)
        if entry.name in keep and not entry.is_symlink() or inside:
            if inside:
                for sub in entry.iterdir():
                    if sub.name not in keep:
                        _move(sub, Path(quarantine_dir) / entry.name, shutil)
            continue
        _move(entry, Path(quarantine_dir), shutil)
        moved.append(entry.name)
    return moved


def _move(entry: Path, target_dir: Path, shutil) -> None:
    target_dir.mkdir(parents=True, exist_ok=True)
    shutil.move(str(entry), str(target_dir / entry.name))
