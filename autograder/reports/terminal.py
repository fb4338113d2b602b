"""The table students and staff read in a terminal."""

from __future__ import annotations

import re
import textwrap

from ..model.scores import GRADED, GradeReport, ProblemResult
from . import printed

# C0 controls but newline and tab, DEL, C1 controls, and the bidirectional overrides that reorder what a line shows.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def safe(text: str) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``): what a submission printed or raised
    cannot move the cursor, rewrite earlier lines, set the clipboard (OSC 52) or retitle a staff member's terminal."""
    return _CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )


def one_line(text: str) -> str:
    """``safe``, and newlines and tabs shown as escapes too: a name, a path or a status printed on one line."""
    return safe(text).replace("\n", "\\n").replace("\t", "\\t")


def _fmt(points: float) -> str:
    return f"{points:g}"


def render_problem(problem: ProblemResult, width: int = 78) -> str:
    """One problem: a header line, then one line per test and the failure details under it."""
    passed = sum(t.passed for t in problem.tests)
    head = f"{problem.module} — {problem.title}"
    tally = f"{passed}/{len(problem.tests)} passed   {_fmt(problem.points)}/{_fmt(problem.max_points)} pts"
    lines = [f"{head}{' ' * max(2, width - len(head) - len(tally))}{tally}"]
    if problem.kind != GRADED:
        lines.append(f"  ! {problem.status}")
        detail = next((t.message for t in problem.tests if t.message.startswith(problem.status)), "")
        if detail.count("\n"):  # e.g. the SyntaxError's line and caret, shown once for the whole problem
            lines.append(textwrap.indent(detail.split("\n", 1)[1], "    "))
    for test in problem.tests:
        mark = "PASS" if test.passed else "FAIL"
        name = f"  {mark}  {test.name}"
        pts = f"{_fmt(test.points)}/{_fmt(test.max_points)}"
        lines.append(f"{name}{' ' * max(2, width - len(name) - len(pts))}{pts}")
        if not test.passed and test.message and not (problem.kind != GRADED and problem.status in test.message):
            lines += [textwrap.indent(test.message, "        ")]
    if problem.output.strip():
        lines.append("  printed by your code:")
        lines.append(textwrap.indent(printed.shown(problem.output), "    | "))
    return "\n".join(lines)


def render(report: GradeReport, title: str = "") -> str:
    """The whole report: notes, each problem, and a total line."""
    parts = [title] if title else []
    parts += [f"note: {n}" for n in report.notes]
    parts += [render_problem(p) for p in report.problems]
    total_tests = sum(len(p.tests) for p in report.problems)
    total_passed = sum(t.passed for p in report.problems for t in p.tests)
    parts.append(
        f"TOTAL  {total_passed}/{total_tests} tests passed   {_fmt(report.points)}/{_fmt(report.max_points)} pts   "
        f"({report.seconds:.1f} s)"
    )
    return safe("\n\n".join(parts))
