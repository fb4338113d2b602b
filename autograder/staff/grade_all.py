"""``grade-all``: grade every submission of a folder or of a Gradescope export in parallel, resumably, in shards.

Each finished submission leaves two files beside the CSV: ``results/<name>.json`` (Gradescope's
format, what the student would see) and ``records/<name>.json`` (the score record itself, with the
fingerprint of what graded it: see ``grading.fingerprint``). The CSV is rebuilt from the records after
every completion, so an interrupted run loses at most the submissions being graded. A rerun grades the
submissions without both files, and those whose record's fingerprint is not the current one: other tests,
points or recorded values, or the submission's own module files changed (only the problems that changed,
unless the harness did); ``force`` grades everything again. It says first how many records it keeps and why it
grades others again, and removes the sandbox folders a killed run left. The summary, its HTML page and the
upload CSV are views of the same records.

Everything about the assignment (manifests, points, test files, recorded values) is checked before the
first submission (``check_assignment``); every process a run starts dies with it, however it ends
(``_die_with_parent``). ``--shard K/N`` grades one part of an export; ``merge`` builds one output from
the shards' records, after the check a rerun makes: it refuses records this checkout would grade again.
"""

from __future__ import annotations

import errno
import gc
import json
import os
import shutil
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..expected import records as expected_records
from ..gradescope import export as gradescope_export
from ..grading import fingerprint, grader
from ..model import manifest
from ..model.manifest import Assignment
from ..model.roster import Roster
from ..model.scores import GradeReport
from ..reports import csv_report, plots, regrade_diff, results_json, summary, summary_html, upload_csv
from ..reports.atomic_file import write_bytes, write_text
from ..reports.terminal import one_line
from ..sandbox import remove_dead_boxes

SKIPPED = gradescope_export.SKIPPED
RECORDS, RESULTS = "records", "results"
SUMMARY_TXT, SUMMARY_HTML, HISTOGRAM = "summary.txt", "summary.html", "histogram.png"
UPLOAD_CSV, REGRADE, SHARD = "gradescope_upload.csv", "regrade.txt", "shard.json"
GRADER_FAILED = "grader failed"  # in Batch.stale: an earlier record the grader failed on, graded again
# Free space a run wants before it starts, and per submission still to grade (a record and a result take ~20-60 KB).
MIN_FREE_BYTES, FREE_PER_SUBMISSION = 20 << 20, 256 << 10


class RunError(Exception):
    """The run cannot start, or cannot go on: a message for staff (the command exits 2)."""


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
    messages: list[str] = field(default_factory=list)  # what staff should know about the input (a missing folder, say)
    names: list[str] = field(
        default_factory=list
    )  # every submission, in CSV order (for an export, also those without a folder)
    fingerprint: dict[str, str] = field(default_factory=dict)  # what grades now (see grading.fingerprint)
    refused: dict[str, str] = field(default_factory=dict)  # entries not graded, with the reason
    stale: dict[str, list[str]] = field(
        default_factory=dict
    )  # submissions graded again: what changed since their record
    reused: dict[str, int] = field(
        default_factory=dict
    )  # submissions graded in part: how many problems their record kept
    shard: tuple[int, int] | None = None  # (K, N): this run grades the K-th of N parts

    @property
    def out_dir(self) -> Path:
        return self.csv_path.parent

    def results_path(self, name: str) -> Path:
        return self.out_dir / RESULTS / f"{name}.json"

    def record_path(self, name: str) -> Path:
        return self.out_dir / RECORDS / f"{name}.json"


def submissions(folder: Path, exclude: tuple[Path, ...] = ()) -> dict[str, Path]:
    """Every entry of ``folder`` (a submission folder or file), by name; noise (``__MACOSX``) and ``exclude``
    skipped."""
    excluded = {p.resolve() for p in exclude}
    found = {}
    for entry in sorted(Path(folder).iterdir()):
        if entry.name in SKIPPED or entry.resolve() in excluded:
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


def check_assignment(assignment: Assignment | None = None) -> tuple[Assignment, dict[str, str]]:
    """The assignment, checked whole before any submission (manifests, every test file and its points, the recorded
    values, recorded now if stale), and its fingerprint. Raises ``RunError`` saying what is wrong."""
    try:
        assignment = assignment or manifest.load()
        grader.load_all_tests(assignment)
        unusable = expected_records.preload(assignment.modules)
        if unusable:
            raise expected_records.MissingExpected("; ".join(unusable.values()))
        return assignment, fingerprint.of(assignment)
    except Exception as exc:  # noqa: BLE001 - whatever it is, no submission can be graded with it
        raise RunError(
            f"the assignment cannot be graded, so nothing was graded or written: {type(exc).__name__}: {exc}\n"
            "Fix the assignment (grade one submission with `grade` to try it) and run grade-all again."
        ) from None
    finally:
        _close_stores()


def _close_stores() -> None:
    """Drop the recorded values this process opened: a job forked with an open .npz would share its file offset with
    the other jobs, and their reads would interleave (each job opens its own)."""
    expected_records.store.cache_clear()
    gc.collect()


def grade_one(
    path: Path, assignment: Assignment, session=None, tests=None, modules: list[str] | None = None
) -> GradeReport:
    """Grade one submission; a failure of the grader itself becomes a record with a status, never an exception."""
    start = time.perf_counter()
    try:
        return grader.grade(
            path, assignment, purpose=grader.Purpose.GRADING, session=session, tests=tests, modules=modules
        )
    except Exception as exc:  # noqa: BLE001 - one bad submission must not stop the batch
        return GradeReport(str(path), [], [f"grader error: {type(exc).__name__}: {exc}"], time.perf_counter() - start)


_JOB: dict = {}
PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """SIGKILL this job process the moment the run's process dies, however it dies (``kill -9`` included); its
    worker goes with it (bubblewrap's --die-with-parent, and the worker's own parent-death signal)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the run died before the signal was armed
        os._exit(1)


def _start_job(assignment: Assignment, parent: int, expected: dict[str, str]) -> None:
    """In each job process: one worker and one load of the tests, reused for every submission this job grades."""
    from multiprocessing import util

    _die_with_parent(parent)
    _close_stores()
    _JOB["assignment"] = assignment
    _JOB["session"] = grader.reusable_session(assignment)
    util.Finalize(None, _JOB["session"].close, exitpriority=10)
    try:
        _JOB["tests"] = grader.load_all_tests(assignment)
        _JOB["fingerprint"] = fingerprint.of(assignment)
    except Exception:  # noqa: BLE001 - each submission then loads them itself and records the error
        _JOB["tests"], _JOB["fingerprint"] = None, {}
    _JOB["changed"] = _JOB["fingerprint"] != expected


def _grade_in_job(path: Path, modules: list[str] | None) -> GradeReport:
    if _JOB["changed"]:
        return GradeReport(
            str(path), [], ["grader error: the assignment's files changed while grade-all ran; run it again"]
        )
    # the submission's digests before it is read: a file changed while it is graded makes the next run grade it again
    files = fingerprint.submission(path, _JOB["assignment"].modules)
    report = grade_one(path, _JOB["assignment"], _JOB["session"], _JOB["tests"], modules)
    report.fingerprint = {**_JOB["fingerprint"], **files} if _JOB["fingerprint"] else {}
    return report


def _merged(old: GradeReport, new: GradeReport, assignment: Assignment) -> GradeReport:
    """``old`` with the problems graded again in ``new`` replaced (in the assignment's order), and ``new``'s notes."""
    if not new.problems:
        return new
    problems = {p.module: p for p in old.problems} | {p.module: p for p in new.problems}
    ordered = [problems[m] for m in assignment.modules if m in problems]
    return GradeReport(new.submission, ordered, new.notes, new.seconds, new.staff_notes, new.fingerprint)


def current(batch: Batch, path: Path) -> dict[str, str]:
    """The fingerprint a record of the submission at ``path`` must carry to be current: what grades, and its files."""
    return {**batch.fingerprint, **fingerprint.submission(path, batch.assignment.modules)}


def _load_done(batch: Batch, found: dict[str, Path]) -> dict[str, GradeReport]:
    """Take the current records of ``found``; return the stale ones (graded with other tests, values or harness, or
    the submission's files changed since)."""
    stale = {}
    for name, path in found.items():
        record, results = batch.record_path(name), batch.results_path(name)
        if not (record.is_file() and results.is_file()):
            continue
        try:
            report = GradeReport.from_dict(json.loads(record.read_text(encoding="utf-8")))
        except (ValueError, KeyError, TypeError):
            continue  # a damaged record is graded again
        if not report.problems:  # the grader failed on it (a job that died, say): try again
            batch.stale[name] = [GRADER_FAILED]
            continue
        changed = fingerprint.stale(report.fingerprint, current(batch, path))
        if changed:
            batch.stale[name] = changed
            stale[name] = report
        else:
            batch.reports[name] = report
    return stale


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
    """Done/total, rate and time left. On a terminal: tqdm's bar, redrawn in place.

    In a pipe (a log, CI) it stays quiet: a line at each tenth of the work, and a line for each
    submission the grader itself failed on (that one needs staff), never one per submission.
    """

    STEPS = 10

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.stream = stream or sys.stderr
        self.bar = None
        if self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, file=self.stream, unit="sub", dynamic_ncols=True, smoothing=0.1,
                            bar_format="{bar:30} {n_fmt}/{total_fmt}  {rate_fmt}  {remaining} left  {desc}")

    def update(self, name: str, report: GradeReport) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.set_description_str(one_line(name)[:30], refresh=False)
            self.bar.update(1)
            if self.done == self.total:
                self.bar.close()
            return
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed * 60 if elapsed > 0 else 0.0
        left = readable_duration((self.total - self.done) * elapsed / self.done)
        if not report.problems:
            self.stream.write(
                one_line(f"grader error on {name}: {report.notes[0] if report.notes else 'no record'}") + "\n"
            )
        if self.done * self.STEPS // max(self.total, 1) > (self.done - 1) * self.STEPS // max(self.total, 1):
            self.stream.write(
                f"[{self.done}/{self.total}] {self.done / max(self.total, 1):.0%}  {rate:.1f}/min  {left} left\n"
            )
        self.stream.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` with 1 <= K <= N; raises ValueError saying what is expected."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard {text}: expected K/N, e.g. 2/3 for the second of three parts") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text}: K must be between 1 and N")
    return k, n


def shard_of(names: list[str], k: int, n: int) -> list[str]:
    """The K-th of N parts of ``names`` (every N-th name from the K-th, in sorted order: parts differ by at most
    one)."""
    return sorted(names)[k - 1::n]


def _check_disk(folder: Path, todo: int) -> None:
    """Refuse to start on a disk without room for what is to be written."""
    where = folder
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free
    need = MIN_FREE_BYTES + todo * FREE_PER_SUBMISSION
    if free < need:
        raise RunError(
            f"the disk holding {folder} has {free >> 20} MB free, and grading {todo} submissions needs about "
            f"{need >> 20} MB; free some space (or pass --out on another disk) and run the same command again"
        )


def open_batch(folder: Path, csv_path: Path, assignment: Assignment | None = None, shard: tuple[int, int] | None = None,
               check: bool = True) -> tuple[Batch, dict[str, Path]]:
    """A batch writing beside ``csv_path``, and the submissions of ``folder`` by name: an export's folders (with
    its roster), or every entry of a plain folder; with ``shard`` (K, N), only the K-th of N parts.

    With ``check``, the assignment is checked whole first. Raises ``RunError`` (the assignment cannot be graded, the
    export's metadata is malformed) or ``gradescope_export.ExportError`` (not an export, a damaged zip) before
    anything is graded or written.
    """
    if check:
        assignment, current = check_assignment(assignment)
    else:
        assignment, current = assignment or manifest.load(), {}
    batch = Batch(Path(folder), Path(csv_path).resolve(), assignment, fingerprint=current, shard=shard)
    export = gradescope_export.read(batch.folder, exclude=(batch.out_dir,))
    if export is None:
        found, batch.refused = gradescope_export.split_refused(submissions(batch.folder, exclude=(batch.out_dir,)))
    else:
        if export.errors:
            raise RunError(
                "the export's metadata is malformed, so its scores could not be put on students' rows; nothing was "
                "graded:\n"
                + "\n".join(f"  {one_line(e)}" for e in export.errors)
                + "\nDownload the export again (or fix submission_metadata.yml) and run grade-all again."
            )
        found, batch.roster, batch.messages, batch.refused = (
            export.submissions,
            export.roster,
            export.messages,
            export.refused,
        )
    everything = sorted(set(found) | set(batch.roster or {}))
    if shard is not None:
        part = set(shard_of(everything, *shard))
        found = {name: path for name, path in found.items() if name in part}
        everything = [name for name in everything if name in part]
    batch.names = everything
    return batch, found


def _write_shard(batch: Batch, found: dict[str, Path]) -> None:
    if batch.shard is not None:
        k, n = batch.shard
        write_text(
            batch.out_dir / SHARD,
            json.dumps(
                {"shard": k, "of": n, "names": batch.names, "graded": sorted(found), "csv": batch.csv_path.name}
            ),
        )


def grade(
    batch: Batch, found: dict[str, Path], jobs: int = 1, force: bool = False, stream: TextIO | None = None
) -> Batch:
    """Grade what ``found`` holds and an earlier run did not, or graded with other tests, values or harness, or whose
    files changed since (only the problems that changed, unless the harness did); everything with ``force``; ``jobs``
    processes at once. Before the first submission, ``stream`` (stderr) is told what an earlier run left: how many
    submissions are kept, and why the others are graded again.

    Raises ``RunError`` when the disk is full (before starting, or on the way: what was graded is kept, a rerun
    resumes).
    """
    stream = stream or sys.stderr
    dead = remove_dead_boxes()
    if dead:
        stream.write(f"removed {len(dead)} sandbox folders (students' modules) a killed run left in {dead[0].parent}\n")
    stale = {} if force else _load_done(batch, found)
    todo = [name for name in found if name not in batch.reports]
    if todo:
        _check_disk(batch.out_dir, len(todo))
    for line in start_lines(batch, len(found), len(todo)):
        stream.write(one_line(line) + "\n")
    stream.flush()
    try:
        _write_shard(batch, found)
        _write_csv(batch)
        if todo:
            _grade_todo(batch, found, todo, stale, jobs, stream)
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise RunError(
                f"the disk holding {batch.out_dir} is full ({exc.strerror}); {len(batch.graded)} submissions graded in "
                "this run are kept (a record is written whole or not at all): free some space and run the same "
                "command again to grade the rest"
            ) from None
        raise
    return batch


def start_lines(batch: Batch, total: int, todo: int) -> list[str]:
    """What a run says before grading: how many submissions an earlier run graded (kept), and why some are graded
    again."""
    kept = total - todo
    lines = (
        [f"resuming: {kept} of {total} submissions already graded by an earlier run are kept; grading {todo}"]
        if kept
        else []
    )
    summary = stale_summary(batch)
    return lines + (summary.splitlines() if summary else [])


def _grade_todo(batch: Batch, found: dict[str, Path], todo: list[str], stale: dict[str, GradeReport], jobs: int,
                stream: TextIO | None) -> None:
    progress = None
    # Processes, not threads: the grader's own share of the work (reference, comparisons) holds the GIL.
    pool = ProcessPoolExecutor(max_workers=max(1, min(jobs, len(todo))), initializer=_start_job,
                               initargs=(batch.assignment, os.getpid(), batch.fingerprint))
    try:
        futures = {}
        for name in todo:
            changed = batch.stale.get(name, [fingerprint.HARNESS])
            modules = None if fingerprint.HARNESS in changed or name not in stale else fingerprint.problems_of(changed)
            if modules is not None:
                batch.reused[name] = len(batch.assignment.modules) - len(modules)
            futures[pool.submit(_grade_in_job, found[name], modules)] = name
        progress = Progress(len(todo), stream)  # after the jobs have forked: tqdm may start a thread
        for future in as_completed(futures):
            name = futures[future]
            try:
                report = future.result()
            except Exception as exc:  # noqa: BLE001 - a job process that died still gets its row
                report = GradeReport(str(found[name]), [], [f"grader error: {type(exc).__name__}: {exc}"])
            if name in stale and report.problems:
                report = _merged(stale[name], report, batch.assignment)
            else:
                batch.reused.pop(name, None)
            _save(batch, name, report)
            progress.update(name, report)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if progress is not None:
            progress.close()


def stale_summary(batch: Batch) -> str:
    """Why records were graded again: what grades changed, the submissions' files changed, or the grader had failed on
    them (empty when none was)."""
    failed = sum(changed == [GRADER_FAILED] for changed in batch.stale.values())
    stale = {name: changed for name, changed in batch.stale.items() if changed != [GRADER_FAILED]}
    grading = {name: [k for k in changed if not k.startswith(fingerprint.FILES)] for name, changed in stale.items()}
    grading = {name: changed for name, changed in grading.items() if changed}
    files = {name: changed for name, changed in stale.items() if name not in grading}
    lines = []
    if grading:
        harness = sum(fingerprint.HARNESS in changed for changed in grading.values())
        parts = [f"{module} ({count})" for module, count in _count_problems(list(grading.values())).items()]
        parts += [f"the harness or an older record, so every problem ({harness})"] if harness else []
        lines.append(
            f"{len(grading)} earlier records were graded with other tests, points, recorded values or harness code: "
            f"graded again what changed: {', '.join(parts)}"
        )
    if files:
        shown = ", ".join(f"{module} ({count})" for module, count in _count_problems(list(files.values())).items())
        lines.append(
            f"{len(files)} submissions' files changed since their record: graded again the problems whose module "
            f"changed: {shown}"
        )
    lines += [f"{failed} submissions the grader had failed on in an earlier run: graded again"] if failed else []
    return "\n".join(lines)


def _count_problems(changes: list[list[str]]) -> dict[str, int]:
    """How many of ``changes`` name each module (a problem's key or its files' key), in first-seen order."""
    counts: dict[str, int] = {}
    for changed in changes:
        for module in fingerprint.problems_of([key for key in changed if key != fingerprint.HARNESS]):
            counts[module] = counts.get(module, 0) + 1
    return counts


def done_line(batch: Batch) -> str:
    """How much this run graded: submissions graded now (those graded in part, with the problems kept from their
    record), and submissions kept whole from earlier runs."""
    partial = {name: kept for name, kept in batch.reused.items() if kept and name in batch.graded}
    line = f"graded {len(batch.graded)} now"
    if partial:
        problems = len(batch.assignment.modules)
        line += (
            f" ({len(partial)} of them in part: {sum(problems - k for k in partial.values())} problems graded again, "
            f"{sum(partial.values())} problems kept from earlier runs)"
        )
    return f"{line}, {len(batch.reports) - len(batch.graded)} from earlier runs"


def grade_all(folder: Path, csv_path: Path, jobs: int = 1, force: bool = False, assignment: Assignment | None = None,
              stream: TextIO | None = None, shard: tuple[int, int] | None = None) -> Batch:
    """``open_batch`` then ``grade``: every submission of a folder or a Gradescope export (zipped or not)."""
    batch, found = open_batch(folder, csv_path, assignment, shard)
    return grade(batch, found, jobs, force, stream)


def merge(batch: Batch, shard_dirs: list[Path], found: dict[str, Path] | None = None) -> Batch:
    """Put the records of every shard of ``batch``'s export into ``batch``'s output folder and rebuild its CSV.

    Refuses (``RunError``) a set of shards that is not every part of one split exactly once, a shard that has not
    graded all of its part, or a record a rerun in this checkout would grade again (other tests, points, recorded values
    or harness, a problem it lacks, or, with ``found``, the submission's files changed): the message names what changed
    and the commands that grade it again.
    """
    records_found: dict[str, tuple[Path, GradeReport]] = {}
    parts: dict[int, tuple[Path, str]] = {}
    total = None
    for folder in map(Path, shard_dirs):
        try:
            info = json.loads((folder / SHARD).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunError(
                f"{folder}: not a shard's output ({SHARD}: {exc}); pass the --out folders of grade-all --shard runs"
            ) from None
        k, n = int(info["shard"]), int(info["of"])
        if total not in (None, n) or k in parts:
            raise RunError(f"{folder}: shard {k}/{n} does not fit with {', '.join(str(p) for p, _ in parts.values())}")
        total, parts[k] = n, (folder, str(info.get("csv", "grades.csv")))
        part = shard_of(sorted(set(batch.names)), k, n)
        records, damaged = read_records(folder)
        if damaged:
            raise RunError("\n".join(damaged))
        done = [name for name in part if name in records and (folder / RESULTS / f"{name}.json").is_file()]
        to_grade = [name for name in info.get("graded", part) if name in part]
        if len(done) < len(to_grade):
            raise RunError(
                f"{folder}: shard {k}/{n} has graded {len(done)} of its {len(to_grade)} submissions; run it again to "
                "finish"
            )
        records_found |= {name: (folder, records[name]) for name in done}
    missing = sorted(set(range(1, (total or 0) + 1)) - set(parts))
    if missing:
        raise RunError(
            f"shards {', '.join(f'{k}/{total}' for k in missing)} are missing; pass the output folder of every shard"
        )
    _refuse_stale(batch, records_found, found, parts, total or 0)
    for name, (folder, report) in sorted(records_found.items()):
        for kind in (RESULTS, RECORDS):
            write_bytes(batch.out_dir / kind / f"{name}.json", (folder / kind / f"{name}.json").read_bytes())
        batch.reports[name] = report
    _write_csv(batch)
    return batch


def _refuse_stale(batch: Batch, records: dict[str, tuple[Path, GradeReport]], found: dict[str, Path] | None,
                  parts: dict[int, tuple[Path, str]], total: int) -> None:
    """Raise ``RunError`` if a rerun in this checkout would grade any of the shards' ``records`` again."""
    what = batch.fingerprint or fingerprint.of(batch.assignment)
    stale: dict[str, list[str]] = {}
    for name, (_, report) in records.items():
        if found is not None and name in found:
            files = fingerprint.submission(found[name], batch.assignment.modules)
        else:  # no submission to compare with: judge what grades only
            files = {k: v for k, v in report.fingerprint.items() if k.startswith(fingerprint.FILES)}
        changed = fingerprint.stale(report.fingerprint, {**what, **files})
        if changed:
            stale[name] = changed
    if not stale:
        return
    kinds: dict[str, list[str]] = {}
    for name, changed in stale.items():
        if not records[name][1].problems:  # a job that died leaves a record without digests: the same rerun grades it
            kinds.setdefault("the grader failed on it in the shard's run", []).append(name)
            continue
        for key in changed:
            if key == fingerprint.HARNESS:
                kinds.setdefault("the harness code, or a record older than fingerprints (every problem)", []).append(
                    name
                )
            elif key.startswith(fingerprint.FILES):
                kinds.setdefault(f"the submission's {key.removeprefix(fingerprint.FILES)}.py", []).append(name)
            elif key not in records[name][1].fingerprint:
                kinds.setdefault(f"{key}: a problem the record does not have (new since)", []).append(name)
            else:
                kinds.setdefault(f"{key}: its tests, points or recorded values", []).append(name)
    lines = [f"  {kind}: {len(names)} submissions ({', '.join(sorted(names)[:3])}{', ...' if len(names) > 3 else ''})"
             for kind, names in kinds.items()]
    shards = sorted(k for k, (folder, _) in parts.items() if any(records[name][0] == folder for name in stale))
    commands = [f"  grade-all {batch.folder} --shard {k}/{total} --out {parts[k][0] / parts[k][1]}" for k in shards]
    raise RunError(
        f"{len(stale)} of the shards' {len(records)} records are out of date for this checkout (a rerun would "
        "grade them again); what changed since they were graded:\n"
        + "\n".join(lines)
        + "\nGrade again what changed (a rerun into the same folder grades only that), then merge again:\n"
        + "\n".join(commands)
    )


def write_summary(batch: Batch) -> str:
    """Print-ready summary; also writes summary.txt, summary.html and histogram.png beside the CSV."""
    modules = batch.assignment.modules
    text = summary.render(batch.reports, modules, batch.roster)
    write_text(batch.out_dir / SUMMARY_TXT, text + "\n")
    reports = list(batch.reports.values())
    pngs = {
        "totals": plots.totals_png(reports) if reports else None,
        "problems": plots.problems_png(reports, modules) if reports else None,
    }
    page = summary_html.render(
        batch.reports, modules, pngs, batch.roster, title=f"{batch.assignment.title}: {batch.folder.resolve().name}"
    )
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
    maxima = (regrade_diff.maximum(before), regrade_diff.maximum(batch.reports))
    text = regrade_diff.render(changes, str(earlier), len(batch.reports), batch.roster, moved, maxima)
    text = "\n".join([*(f"warning: {d}" for d in damaged), text])
    write_text(batch.out_dir / REGRADE, text + "\n")
    return text
