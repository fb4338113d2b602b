"""The table ``autograder.check()`` shows in Jupyter: the total first, then per test passed or failed and the failure's
labelled parts. Rendered with Jinja2 (autoescaping: what a submission printed or raised is shown, never interpreted);
the layout is fixed to the page's width, and long names wrap after ``_``, ``.`` or ``,``, never inside a word."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from ..model.scores import DETAIL_LABELS, GRADED, GradeReport, ProblemResult, TestResult
from . import printed

COLUMNS = ("test", "result", "call", "expected", "got", "where", "hint")  # the last five: DETAIL_LABELS
WIDTHS = (18, 6, 18, 10, 10, 20, 18)  # percent of the page: 1280 px reads without a horizontal scrollbar
TEMPLATES = Path(__file__).resolve().parent / "templates"
_BREAK_AFTER = re.compile(r"([_.,/=(\[])(?=\w)")


def failure_cells(test: TestResult) -> dict[str, str]:
    """A failed test's labelled parts; a failure the checks did not label (a crash, a timeout) is all 'Where'."""
    if test.passed:
        return {}
    return test.details or {"Where": test.message}


def _breakable(text: str):  # -> Markup
    """``text`` escaped, with a line-break opportunity after ``_ . , / = ( [`` inside a long name
    (``shift_<wbr>matrix``)."""
    from markupsafe import Markup, escape

    return Markup(_BREAK_AFTER.sub(r"\1<wbr>", str(escape(text))))


def _cell(text: str):  # -> Markup
    """A table cell: a traceback keeps its lines and indentation; other lines (several hints) are paragraphs that
    wrap."""
    from markupsafe import Markup

    if "\n" not in text:
        return _breakable(text)
    if "Traceback" in text or "\n  " in text:
        return (
            Markup("<pre style='margin:0;white-space:pre-wrap;overflow-wrap:break-word;font-size:12px'>")
            + _breakable(text)
            + Markup("</pre>")
        )
    return Markup("<br>").join(_breakable(line) for line in text.splitlines() if line.strip())


@functools.cache
def _template():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True, lstrip_blocks=True
    )
    env.filters["breakable"], env.filters["cell"] = _breakable, _cell
    return env.get_template("notebook_check.html.j2")


def total_line(report: GradeReport) -> str:
    """``29/39 public tests pass · 35/50 points``: what the table adds up to."""
    tests = [t for p in report.problems for t in p.tests]
    return (f"{sum(t.passed for t in tests)}/{len(tests)} public tests pass · "
            f"{report.points:g}/{report.max_points:g} points of the public tests")


def _test_row(test: TestResult, problem: ProblemResult) -> dict:
    parts = failure_cells(test)
    whole = "" if test.passed or test.details else test.message  # no labels: the message spans the row
    if not test.passed and problem.kind != GRADED and test.message.startswith(problem.status):
        whole = "not run: the module could not be graded (why: above)"  # the reason, traceback and all, is shown once
    return {
        "name": test.name,
        "passed": test.passed,
        "whole": whole,
        "parts": [parts.get(label, "") for label in DETAIL_LABELS],
    }


def _status(problem: ProblemResult) -> str:
    """Why a problem could not be graded, with the detail its tests carry (a SyntaxError's line, say), once."""
    if problem.kind == GRADED:
        return ""
    return next((t.message for t in problem.tests if t.message.startswith(problem.status)), problem.status)


def render(report: GradeReport, summary: str, passed: bool) -> str:
    """The whole table, the total above it and the summary line below, in green (all passed) or red."""
    problems = []
    for problem in report.problems:
        problems.append({
            "module": problem.module, "title": problem.title, "passed": sum(t.passed for t in problem.tests),
            "count": len(problem.tests), "points": f"{problem.points:g}", "max_points": f"{problem.max_points:g}",
            "status": _status(problem), "output": printed.shown(problem.output),
            "tests": [_test_row(t, problem) for t in problem.tests],
        })
    return _template().render(
        total=total_line(report),
        notes=report.notes,
        columns=COLUMNS,
        widths=WIDTHS,
        problems=problems,
        summary=summary,
        colour="#070" if passed else "#a00",
    )
