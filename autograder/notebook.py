"""``autograder.check()`` and ``autograder.submit()`` in a notebook: the public tests, out of process, shown as a table;
then the zip to upload.

Each call reads the student's modules from disk again and runs each in a fresh process (on Linux a child
of one sandbox worker kept for the notebook's life, so torch is imported once; the portable path elsewhere),
so an infinite loop, ``os._exit`` or a crash in their code ends that process, never the kernel. In Jupyter
the result shows as an HTML table, elsewhere as text.
"""

from __future__ import annotations

import atexit
import html
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from .grading import check as grading_check
from .grading import submit as grading_submit
from .model import manifest, paths
from .model.scores import GradeReport
from .reports import notebook_html, terminal
from .sandbox import WorkerSession


@dataclass
class CheckResult:
    """What ``check`` found: ``passed`` is True only when every public test asked for passed.

    ``usage`` is a mistake in how the check was called (a problem's name, the folder), said in the student's words;
    ``error`` is a fault of the check itself."""

    passed: bool
    report: GradeReport | None = None
    summary: str = ""
    error: str = ""
    problems: list[str] = field(default_factory=list)
    usage: str = ""

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return self.text()

    def text(self) -> str:
        if self.usage:
            return self.usage
        if self.report is None:
            return f"The check itself failed (not your code): {self.error}"
        return terminal.render(self.report, title="Public tests") + "\n" + self.summary

    def _repr_html_(self) -> str:
        if self.usage:
            return f"<p style='color:#a00'><b>{html.escape(self.usage)}</b></p>"
        if self.report is None:
            return f"<p><b>The check itself failed (not your code):</b></p><pre>{html.escape(self.error)}</pre>"
        return notebook_html.render(self.report, self.summary, self.passed)


@dataclass
class SubmitResult:
    """What ``submit`` did: the check's table, what is left to do, and the zip to upload (``out``, None if none was
    written)."""

    out: Path | None
    lines: list[str]
    check: CheckResult

    def __bool__(self) -> bool:
        return self.out is not None

    def __repr__(self) -> str:
        return self.text()

    def text(self) -> str:
        head = self.check.text() + "\n\n" if self.check.report is not None or self.check.error else ""
        return head + "\n".join(self.lines)

    def _repr_html_(self) -> str:
        table = self.check._repr_html_() if self.check.report is not None or self.check.error else ""
        return table + f"<pre style='white-space:pre-wrap'>{html.escape(chr(10).join(self.lines))}</pre>"


WRONG_FOLDER = ("{where} is not a folder. Open this notebook from the handout's folder (the one holding autograder/, "
                "student_template/ and this notebook), or pass folder= the folder of your .py files.")


def check(*problems: str, folder: str | Path | None = None) -> CheckResult:
    """Run the public tests of ``problems`` (default: all of them) on the modules in ``folder`` (default:
    student_template/)."""
    try:
        assignment = manifest.load()
        unknown = [p for p in problems if p not in assignment.modules]
        where = Path(folder) if folder is not None else paths.TEMPLATES
        if unknown:
            result = CheckResult(False, usage=grading_check.unknown_problem(unknown[0], assignment.modules))
        elif not where.exists():
            result = CheckResult(False, usage=WRONG_FOLDER.format(where=where))
        else:
            report = grading_check.run(where, assignment, list(problems), session=_session(assignment))
            result = CheckResult(
                report.all_passed, report, grading_check.verdict(report, assignment), problems=list(problems)
            )
    except Exception:  # noqa: BLE001 - a fault of the grader or the machine must not end the student's session
        close()  # a worker in an unknown state: the next check starts afresh
        result = CheckResult(False, error=traceback.format_exc(limit=5))
    if not _in_ipython():
        print(result.text())
    return result


def submit(folder: str | Path | None = None, out: str | Path = "submission.zip") -> SubmitResult:
    """Run every public test on the modules in ``folder`` (default: student_template/), say what still fails or is not
    implemented, and write ``out``: a zip of exactly the assignment's module files, to upload to Gradescope."""
    where = Path(folder) if folder is not None else paths.TEMPLATES
    try:
        assignment = manifest.load()
        if not where.exists():
            result = SubmitResult(None, [], CheckResult(False, usage=WRONG_FOLDER.format(where=where)))
        else:
            done = grading_submit.submit(where, Path(out), assignment, session=_session(assignment))
            check = (CheckResult(done.report.all_passed, done.report, grading_check.verdict(done.report, assignment))
                     if done.report is not None else CheckResult(False, usage=done.error))
            result = SubmitResult(done.out, grading_submit.describe(done, assignment), check)
    except Exception:  # noqa: BLE001 - a fault of the grader or the machine must not end the student's session
        close()
        result = SubmitResult(None, [], CheckResult(False, error=traceback.format_exc(limit=5)))
    if not _in_ipython():
        print(result.text())
    return result


# The sandbox workers serving this process's checks (torch imported once each, one per core: problems run in parallel).
_SESSIONS: list[WorkerSession] = []


def _session(assignment) -> list[WorkerSession] | None:
    """The notebook's workers, started at the first check; None on the portable path (fresh children at every check)."""
    if not _SESSIONS:
        _SESSIONS.extend(grading_check.open_sessions(assignment))
        if _SESSIONS:
            atexit.register(close)
    return list(_SESSIONS) or None


def close() -> None:
    """Stop the workers that serve this notebook's checks (the next check starts new ones)."""
    sessions = list(_SESSIONS)
    _SESSIONS.clear()
    for session in sessions:
        session.close()


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None
