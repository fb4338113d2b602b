"""``autograder.check()`` in a notebook: the public tests, out of process, shown as a table.

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

from .grading import selfcheck
from .model import manifest, paths
from .model.scores import GradeReport
from .reports import notebook_html, terminal
from .sandbox.session import WorkerSession


@dataclass
class CheckResult:
    """What ``check`` found: ``passed`` is True only when every public test asked for passed."""

    passed: bool
    report: GradeReport | None = None
    summary: str = ""
    error: str = ""
    problems: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return self.text()

    def text(self) -> str:
        if self.report is None:
            return f"The check itself failed (not your code): {self.error}"
        return terminal.render(self.report, title="Public tests") + "\n" + self.summary

    def _repr_html_(self) -> str:
        if self.report is None:
            return f"<p><b>The check itself failed (not your code):</b></p><pre>{html.escape(self.error)}</pre>"
        return notebook_html.render(self.report, self.summary, self.passed)


def check(*problems: str, folder: str | Path | None = None) -> CheckResult:
    """Run the public tests of ``problems`` (default: all of them) on the modules in ``folder`` (default: student_template/)."""
    try:
        assignment = manifest.load()
        unknown = [p for p in problems if p not in assignment.modules]
        if unknown:
            return CheckResult(False, error=f"unknown problem {unknown[0]!r}; choose from {', '.join(assignment.modules)}")
        where = Path(folder) if folder is not None else paths.TEMPLATES
        if not where.is_dir():
            return CheckResult(False, error=f"{where} is not a folder: open the notebook in the handout's folder, or pass folder=")
        report = selfcheck.run(where, assignment, list(problems), session=_session(assignment))
        result = CheckResult(report.all_passed, report, selfcheck.verdict(report, assignment), problems=list(problems))
    except Exception:  # noqa: BLE001 - a fault of the grader or the machine must not end the student's session
        close()  # a worker in an unknown state: the next check starts afresh
        result = CheckResult(False, error=traceback.format_exc(limit=5))
    if not _in_ipython():
        print(result.text())
    return result


_SESSION: WorkerSession | None = None  # the sandbox worker serving this process's checks (torch imported once)


def _session(assignment) -> WorkerSession | None:
    """The notebook's worker, started at the first check; None on the portable path (fresh children at every check)."""
    global _SESSION
    if _SESSION is None:
        _SESSION = selfcheck.open_session(assignment)
        if _SESSION is not None:
            atexit.register(close)
    return _SESSION


def close() -> None:
    """Stop the worker that serves this notebook's checks (the next check starts a new one)."""
    global _SESSION
    session, _SESSION = _SESSION, None
    if session is not None:
        session.close()


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None
