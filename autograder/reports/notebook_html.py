"""The table ``autograder.check()`` shows in Jupyter: per test, passed or failed, and the failure's labelled parts."""

from __future__ import annotations

import html

from ..model.scores import DETAIL_LABELS, GRADED, GradeReport, TestResult

COLUMNS = ("test", "result", "call", "expected", "got", "where", "hint")  # the last five: DETAIL_LABELS


def failure_cells(test: TestResult) -> dict[str, str]:
    """A failed test's labelled parts; a failure the checks did not label (a crash, a timeout) is all 'Where'."""
    if test.passed:
        return {}
    return test.details or {"Where": test.message}


def render(report: GradeReport, summary: str, passed: bool) -> str:
    """The whole table, then the summary line in green (all passed) or red."""
    rows = []
    for problem in report.problems:
        count = sum(t.passed for t in problem.tests)
        status = "" if problem.kind == GRADED else f"<br><span style='color:#a00'>{html.escape(problem.status)}</span>"
        rows.append(f"<tr style='background:#eef'><th colspan='{len(COLUMNS)}' style='text-align:left'>{html.escape(problem.module)} — "
                    f"{html.escape(problem.title)}: {count}/{len(problem.tests)} passed{status}</th></tr>")
        for test in problem.tests:
            parts = failure_cells(test)
            mark = "<span style='color:#070'>passed</span>" if test.passed else "<span style='color:#a00'><b>failed</b></span>"
            cells = [html.escape(test.name), mark] + [_cell(parts.get(label, "")) for label in DETAIL_LABELS]
            rows.append("<tr>" + "".join(f"<td style='text-align:left;vertical-align:top'>{c}</td>" for c in cells) + "</tr>")
        if problem.output.strip():
            rows.append(f"<tr><td colspan='{len(COLUMNS)}' style='text-align:left'>printed by your code:"
                        f"<pre>{html.escape(problem.output[-2000:])}</pre></td></tr>")
    head = "".join(f"<th style='text-align:left'>{h}</th>" for h in COLUMNS)
    colour = "#070" if passed else "#a00"
    return (f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"<p style='color:{colour}'><b>{html.escape(summary)}</b></p>")


def _cell(text: str) -> str:
    return f"<pre style='margin:0;white-space:pre-wrap'>{html.escape(text)}</pre>" if "\n" in text else html.escape(text)
