"""``grade-all``: grade every submission of a folder in parallel, resumably.

Each finished submission leaves two files beside the CSV: ``results/<name>.json`` (Gradescope's
format, what the student would see) and ``records/<name>.json`` (the score record itself).
The CSV, the summary and the histogram are rebuilt from the records after every completion,
so an interrupted run loses at most the submissions being graded, and a rerun grades only
the submissions without both files (unless ``force``).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from . import grading, manifest
from .manifest import Assignment
from .reports import csv_report, gradescope, summary
from .scores import GradeReport

SKIPPED = ("__MACOSX",)


@dataclass
class Batch:
    """Where a batch writes, and what it has graded so far."""

    folder: Path
    csv_path: Path
    assignment: Assignment
    reports: dict[str, GradeReport] = field(default_factory=dict)
    graded: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def out_dir(self) -> Path:
        return self.csv_path.parent

    def results_path(self, name: str) -> Path:
        return self.out_dir / "results" / f"{name}.json"

    def record_path(self, name: str) -> Path:
        return self.out_dir / "records" / f"{name}.json"


def submissions(folder: Path, exclude: tuple[Path, ...] = ()) -> dict[str, Path]:
    """Every entry of ``folder`` (a submission folder or file), by name; hidden entries and ``exclude`` skipped."""
    excluded = {p.resolve() for p in exclude}
    found = {}
    for entry in sorted(Path(folder).iterdir()):
        if entry.name.startswith(".") or entry.name in SKIPPED or entry.resolve() in excluded:
            continue
        found[entry.name] = entry
    return found


def _write_json(data: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".record-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def grade_one(path: Path, assignment: Assignment, session=None, tests=None) -> GradeReport:
    """Grade one submission; a failure of the grader itself becomes a record with a status, never an exception."""
    start = time.perf_counter()
    try:
        return grading.grade(path, assignment, session=session, tests=tests)
    except Exception as exc:  # noqa: BLE001 - one bad submission must not stop the batch
        return GradeReport(str(path), [], [f"grader error: {type(exc).__name__}: {exc}"], time.perf_counter() - start)


_JOB: dict = {}


def _start_job(assignment: Assignment) -> None:
    """In each job process: one worker and one load of the tests, reused for every submission this job grades."""
    from multiprocessing import util

    _JOB["assignment"] = assignment
    _JOB["session"] = grading.reusable_session(assignment)
    util.Finalize(None, grading.close_reusable, args=(_JOB["session"],), exitpriority=10)
    try:
        _JOB["tests"] = grading.load_all_tests(assignment)
    except Exception:  # noqa: BLE001 - each submission then loads them itself and records the error
        _JOB["tests"] = None


def _grade_in_job(path: Path) -> GradeReport:
    return grade_one(path, _JOB["assignment"], _JOB["session"], _JOB["tests"])


def _load_done(batch: Batch, names: list[str]) -> None:
    for name in names:
        record, results = batch.record_path(name), batch.results_path(name)
        if record.is_file() and results.is_file():
            try:
                batch.reports[name] = GradeReport.from_dict(json.loads(record.read_text(encoding="utf-8")))
            except (ValueError, KeyError, TypeError):
                continue  # a damaged record is graded again


def _save(batch: Batch, name: str, report: GradeReport, order: list[str]) -> None:
    gradescope.write(report, batch.results_path(name))
    _write_json(report.to_dict(), batch.record_path(name))
    with batch.lock:
        batch.reports[name] = report
        batch.graded.append(name)
        _write_csv(batch, order)


def _write_csv(batch: Batch, order: list[str]) -> None:
    rows = [(name, batch.reports[name]) for name in order if name in batch.reports]
    csv_report.write(rows, batch.assignment.modules, batch.csv_path)


class Progress:
    """A bar redrawn in place on a terminal, one line per submission otherwise."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()

    def update(self, name: str, report: GradeReport) -> None:
        self.done += 1
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed * 60 if elapsed > 0 else 0.0
        left = (self.total - self.done) * elapsed / self.done
        if self.tty:
            filled = int(30 * self.done / max(self.total, 1))
            self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total}  {rate:.1f}/min  "
                              f"{left:4.0f} s left  {name[:30]:<30}")
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"[{self.done}/{self.total}] {name}: {report.points:g}/{report.max_points:g} "
                              f"{csv_report.status(report)} ({report.seconds:.1f} s; {rate:.1f}/min, {left:.0f} s left)\n")
        self.stream.flush()


def grade_all(folder: Path, csv_path: Path, jobs: int = 1, force: bool = False,
              assignment: Assignment | None = None, stream: TextIO | None = None) -> Batch:
    """Grade every submission in ``folder`` with ``jobs`` threads (each grade has its own sandboxed worker)."""
    csv_path = Path(csv_path).resolve()
    batch = Batch(Path(folder), csv_path, assignment or manifest.load())
    found = submissions(batch.folder, exclude=(batch.out_dir,))
    order = list(found)
    if not force:
        _load_done(batch, order)
    todo = [name for name in order if name not in batch.reports]
    _write_csv(batch, order)
    progress = Progress(len(todo), stream)
    # Processes, not threads: the grader's own share of the work (reference, comparisons) holds the GIL.
    pool = ProcessPoolExecutor(max_workers=max(1, jobs), initializer=_start_job, initargs=(batch.assignment,))
    try:
        futures = {pool.submit(_grade_in_job, found[name]): name for name in todo}
        for future in as_completed(futures):
            name = futures[future]
            try:
                report = future.result()
            except Exception as exc:  # noqa: BLE001 - a job process that died still gets its row
                report = GradeReport(str(found[name]), [], [f"grader error: {type(exc).__name__}: {exc}"])
            _save(batch, name, report, order)
            progress.update(name, report)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return batch


def write_summary(batch: Batch) -> str:
    """Print-ready summary; also writes summary.txt and histogram.png beside the CSV."""
    reports = [batch.reports[name] for name in sorted(batch.reports)]
    text = summary.render(reports, batch.assignment.modules)
    (batch.out_dir / "summary.txt").write_text(text + "\n", encoding="utf-8")
    note = summary.histogram(reports, batch.out_dir / "histogram.png") if reports else "no submissions; no histogram"
    return f"{text}\n{note}"
