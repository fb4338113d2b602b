"""``grade-all``: grade every submission of a folder or of a Gradescope export in parallel, resumably.

Each finished submission leaves two files beside the CSV: ``results/<name>.json`` (Gradescope's
format, what the student would see) and ``records/<name>.json`` (the score record itself).
The CSV is rebuilt from the records after every completion, so an interrupted run loses at most
the submissions being graded, and a rerun grades only the submissions without both files (unless
``force``). The summary, its HTML page and the upload CSV are views of the same records.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..gradescope import export as gradescope_export
from ..grading import grader
from ..model import manifest
from ..model.manifest import Assignment
from ..model.roster import Roster
from ..model.scores import GradeReport
from ..reports import csv_report, plots, regrade_diff, results_json, summary, summary_html, upload_csv
from ..reports.atomic_file import write_bytes, write_text

SKIPPED = ("__MACOSX",)
RECORDS, RESULTS = "records", "results"
SUMMARY_TXT, SUMMARY_HTML, HISTOGRAM = "summary.txt", "summary.html", "histogram.png"
UPLOAD_CSV, REGRADE = "gradescope_upload.csv", "regrade.txt"


@dataclass
class Batch:
    """Where a batch writes, what it grades (and who submitted it, for an export), and what it has graded so far."""

    folder: Path
    csv_path: Path
    assignment: Assignment
    reports: dict[str, GradeReport] = field(default_factory=dict)
    graded: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    roster: Roster | None = None  # None: a plain folder of submissions, known by name only
    messages: list[str] = field(default_factory=list)  # what staff should know about the input (bad metadata, say)
    names: list[str] = field(default_factory=list)  # every submission, in CSV order (for an export, also those without a folder)

    @property
    def out_dir(self) -> Path:
        return self.csv_path.parent

    def results_path(self, name: str) -> Path:
        return self.out_dir / RESULTS / f"{name}.json"

    def record_path(self, name: str) -> Path:
        return self.out_dir / RECORDS / f"{name}.json"


def submissions(folder: Path, exclude: tuple[Path, ...] = ()) -> dict[str, Path]:
    """Every entry of ``folder`` (a submission folder or file), by name; hidden entries and ``exclude`` skipped."""
    excluded = {p.resolve() for p in exclude}
    found = {}
    for entry in sorted(Path(folder).iterdir()):
        if entry.name.startswith(".") or entry.name in SKIPPED or entry.resolve() in excluded:
            continue
        found[entry.name] = entry
    return found


def read_records(out_dir: Path) -> tuple[dict[str, GradeReport], list[str]]:
    """The score records an earlier run left in ``out_dir/records``, by name, and one message per damaged record."""
    found, damaged = {}, []
    for path in sorted((Path(out_dir) / RECORDS).glob("*.json")):
        try:
            found[path.stem] = GradeReport.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError) as exc:
            damaged.append(f"{path}: not a score record ({type(exc).__name__}: {exc})")
    return found, damaged


def grade_one(path: Path, assignment: Assignment, session=None, tests=None) -> GradeReport:
    """Grade one submission; a failure of the grader itself becomes a record with a status, never an exception."""
    start = time.perf_counter()
    try:
        return grader.grade(path, assignment, purpose=grader.Purpose.GRADING, session=session, tests=tests)
    except Exception as exc:  # noqa: BLE001 - one bad submission must not stop the batch
        return GradeReport(str(path), [], [f"grader error: {type(exc).__name__}: {exc}"], time.perf_counter() - start)


_JOB: dict = {}


def _start_job(assignment: Assignment) -> None:
    """In each job process: one worker and one load of the tests, reused for every submission this job grades."""
    from multiprocessing import util

    _JOB["assignment"] = assignment
    _JOB["session"] = grader.reusable_session(assignment)
    util.Finalize(None, _JOB["session"].close, exitpriority=10)
    try:
        _JOB["tests"] = grader.load_all_tests(assignment)
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


def _save(batch: Batch, name: str, report: GradeReport) -> None:
    results_json.write(report, batch.results_path(name), batch.assignment.gradescope.visibility)
    write_text(batch.record_path(name), json.dumps(report.to_dict()))
    with batch.lock:
        batch.reports[name] = report
        batch.graded.append(name)
        _write_csv(batch)


def _write_csv(batch: Batch) -> None:
    missing = {name for name, entry in (batch.roster or {}).items() if entry.missing}
    rows = [(name, batch.reports.get(name)) for name in batch.names if name in batch.reports or name in missing]
    csv_report.write(rows, batch.assignment.modules, batch.csv_path, batch.roster)


def readable_duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s`` or ``1 h 02 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes} min {seconds:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


class Progress:
    """Done/total, rate and time left: a bar redrawn in place on a terminal.

    In a pipe (a log, CI) it stays quiet: a line at each tenth of the work, and a line for each
    submission the grader itself failed on (that one needs staff), never one per submission.
    """

    STEPS = 10

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()

    def update(self, name: str, report: GradeReport) -> None:
        self.done += 1
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed * 60 if elapsed > 0 else 0.0
        left = readable_duration((self.total - self.done) * elapsed / self.done)
        if self.tty:
            filled = int(30 * self.done / max(self.total, 1))
            self.stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total}  {rate:.1f}/min  "
                              f"{left} left  {name[:30]:<30}\x1b[K")
            if self.done == self.total:
                self.stream.write("\n")
        else:
            if not report.problems:
                self.stream.write(f"grader error on {name}: {csv_report.status(report)}\n")
            if self.done * self.STEPS // max(self.total, 1) > (self.done - 1) * self.STEPS // max(self.total, 1):
                self.stream.write(f"[{self.done}/{self.total}] {self.done / max(self.total, 1):.0%}  {rate:.1f}/min  {left} left\n")
        self.stream.flush()


def open_batch(folder: Path, csv_path: Path, assignment: Assignment | None = None) -> tuple[Batch, dict[str, Path]]:
    """A batch writing beside ``csv_path``, and the submissions of ``folder`` by name: an export's folders (with
    its roster and what was wrong with its metadata), or every entry of a plain folder.

    Raises ``gradescope_export.ExportError`` when ``folder`` is neither a folder nor an export zip.
    """
    batch = Batch(Path(folder), Path(csv_path).resolve(), assignment or manifest.load())
    export = gradescope_export.read(batch.folder, exclude=(batch.out_dir,))
    if export is None:
        found = submissions(batch.folder, exclude=(batch.out_dir,))
    else:
        found, batch.roster, batch.messages = export.submissions, export.roster, export.messages
    batch.names = sorted(set(found) | set(batch.roster or {}))
    return batch, found


def grade(batch: Batch, found: dict[str, Path], jobs: int = 1, force: bool = False, stream: TextIO | None = None) -> Batch:
    """Grade what ``found`` holds and an earlier run did not (everything with ``force``), ``jobs`` processes at once."""
    if not force:
        _load_done(batch, list(found))
    todo = [name for name in found if name not in batch.reports]
    _write_csv(batch)
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
            _save(batch, name, report)
            progress.update(name, report)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return batch


def grade_all(folder: Path, csv_path: Path, jobs: int = 1, force: bool = False,
              assignment: Assignment | None = None, stream: TextIO | None = None) -> Batch:
    """``open_batch`` then ``grade``: every submission of a folder or a Gradescope export (zipped or not)."""
    batch, found = open_batch(folder, csv_path, assignment)
    return grade(batch, found, jobs, force, stream)


def write_summary(batch: Batch) -> str:
    """Print-ready summary; also writes summary.txt, summary.html and histogram.png beside the CSV."""
    modules = batch.assignment.modules
    text = summary.render(batch.reports, modules)
    write_text(batch.out_dir / SUMMARY_TXT, text + "\n")
    reports = list(batch.reports.values())
    pngs = {"totals": plots.totals_png(reports) if reports else None, "problems": plots.problems_png(reports, modules) if reports else None}
    page = summary_html.render(batch.reports, modules, pngs, batch.roster, title=f"{batch.assignment.title}: {batch.folder.resolve().name}")
    notes = [f"wrote {write_text(batch.out_dir / SUMMARY_HTML, page)}"]
    if pngs["totals"] is not None:
        notes.append(f"wrote {write_bytes(batch.out_dir / HISTOGRAM, pngs['totals'])}")
    else:
        notes.append("no histogram (no submissions, or matplotlib is not installed)")
    return "\n".join([text, *notes])


def write_upload(batch: Batch) -> upload_csv.Upload | None:
    """For an export, write gradescope_upload.csv beside the CSV and return what it holds; None for a plain folder."""
    if batch.roster is None:
        return None
    upload = upload_csv.build(batch.reports, batch.roster)
    upload_csv.write(upload, batch.out_dir / UPLOAD_CSV)
    return upload


def write_regrade(batch: Batch, earlier: Path) -> str:
    """Compare with the records of the run in ``earlier``; write regrade.txt beside the CSV and return its text."""
    before, damaged = read_records(earlier)
    changes = regrade_diff.compare(before, batch.reports)
    moved = regrade_diff.moved_tests_only(before, batch.reports)
    text = regrade_diff.render(changes, str(earlier), len(batch.reports), batch.roster, moved)
    text = "\n".join([*(f"warning: {d}" for d in damaged), text])
    write_text(batch.out_dir / REGRADE, text + "\n")
    return text
