"""What runs inside otter's Jupyter kernel: proxies for the student's modules, nothing more.

otter executes exactly one notebook or script of the submission folder. The autograder zip
ships ``grade_submission.ipynb``, which takes precedence over the student's ``.py`` files and
calls ``expose()``: the kernel's globals then hold one proxy per module, and otter runs our
test files against them. Student code runs only in the sandboxed worker, as in ``grade``.
"""

from __future__ import annotations

import atexit
import json
from collections import Counter
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
# Beside results.json, for staff only (the emulation reads it): the grader's notes on this run, one JSON object a line:
# {"staff_notes": [...]} when the run starts, then {"refused": kind} for every call stopped at its limit or not run.
RUN_RECORD = "autograder_run.jsonl"


def expose(submission_dir: str, results_dir: str | None = None) -> dict[str, StudentModule]:
    """Stage the student's modules found in ``submission_dir`` and return a proxy per module; calls the time rules stop
    or refuse are added to the run record in ``results_dir`` (on Gradescope)."""
    assignment = manifest.load()
    records.preload(assignment.modules)  # the recorded values are open before any student code runs
    located = submission.locate(Path(submission_dir), assignment.modules, exclude=SHIPPED)
    # otter copies the zip's files (harness, tests) into the folder it grades: that copy is the grader's too (issue 18)
    private = tuple(p for p in GRADESCOPE_PRIVATE if p.exists()) + (paths.ROOT, Path(submission_dir))
    session = WorkerSession(memory_mb=worker_memory.choose(assignment).mb, private=private)
    session.switch(session.stage(located.sources))
    session.start()
    atexit.register(session.close)
    refused = (lambda kind: record_run({"refused": kind}, Path(results_dir))) if results_dir else None
    guard = time_rules.CallGuard(deadline=time_rules.inherited_deadline(), on_refused=refused)
    for p in assignment.problems:
        guard.set_budget(p.module, time_rules.problem_budget(p))
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

globals().update(_expose(_os.getcwd(), _os.path.join(_os.path.dirname(_os.getcwd()), "results")))
'''


def prepare_run(submission_dir: str, quarantine_dir: str, results_dir: str) -> None:
    """Before otter starts on Gradescope: fix the deadline, quarantine extras, tell staff the limits in force (the stdout log
    and the run record)."""
    from ..sandbox import policy

    assignment = manifest.load()
    time_rules.start_clock(assignment.gradescope)
    quarantine_extras(submission_dir, quarantine_dir)
    memory = worker_memory.choose(assignment)
    notes = [policy.detect().describe(), f"worker memory limit {memory.mb} MB ({memory.reason})"]
    notes += [f"warning: {memory.warning}"] if memory.warning else []
    notes.append(f"time rules: {time_rules.describe(assignment)}")
    print("\n".join(notes), flush=True)
    record_run({"staff_notes": notes}, Path(results_dir))


def record_run(entry: dict, folder: Path) -> None:
    """Add one line to the run record in ``folder`` (nothing when there is no such folder)."""
    if folder.is_dir():
        with open(folder / RUN_RECORD, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def read_run_record(folder: Path) -> tuple[list[str], Counter]:
    """The staff notes and the count of refused calls by kind that a run left in ``folder`` (empty when it left none)."""
    notes: list[str] = []
    refused: Counter = Counter()
    try:
        lines = (folder / RUN_RECORD).read_text(encoding="utf-8").splitlines()
    except OSError:
        return notes, refused
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        notes += [str(n) for n in entry.get("staff_notes", [])] if isinstance(entry, dict) else []
        if isinstance(entry, dict) and isinstance(entry.get("refused"), str):
            refused[entry["refused"]] += 1
    return notes, refused


def quarantine_extras(submission_dir: str, quarantine_dir: str) -> list[str]:
    """Move everything but the module files out of ``submission_dir`` (run before otter starts)."""
    import shutil

    root = Path(submission_dir)
    located = submission.locate(root, manifest.load().modules)
    folders = {found.rpartition("/")[0] for found in located.paths.values()}
    if len(folders) > 1 or any(f.count("/") for f in folders):  # modules deeper, or apart: all move to the top
        for found in located.paths.values():
            if "/" in found and (root / found).is_file() and not (root / found).is_symlink():
                (root / found).rename(root / found.rsplit("/", 1)[-1])
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
