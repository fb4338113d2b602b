"""summary.html: the class at a glance in one self-contained page (inline CSS and PNGs, no script, works offline).

Every string that comes from a submission or the roster (names, statuses, file names) is escaped.
"""

from __future__ import annotations

import base64
import html

from ..model.roster import Roster
from ..model.scores import GradeReport
from . import class_stats
from .csv_report import status

SLOWEST = 10
LOW = 0.5  # pass rates below this are drawn in red
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 2px solid #4472c4; } h3 { margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; } th, td { padding: .25em .7em; text-align: left; vertical-align: top; }
th { background: #e8eef8; } tr:nth-child(even) td { background: #f6f8fc; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.bar { background: #dde5f3; width: 12em; height: .9em; } .bar > div { background: #4472c4; height: 100%; }
.bar.low > div { background: #c0504d; } .muted { color: #777; } img { max-width: 100%; }
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _table(head: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """Cells in ``rows`` are HTML already (escaped by the caller); headers are plain text."""
    top = "".join(f"<th>{_e(h)}</th>" for h in head)
    numeric_cell = '<td class="n">'
    body = "".join("<tr>" + "".join(f"{numeric_cell if i in numeric else '<td>'}{c}</td>" for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{top}</tr></thead><tbody>{body}</tbody></table>"


def _image(png: bytes | None, alt: str) -> str:
    if png is None:
        return f'<p class="muted">{_e(alt)}: no plot (matplotlib is not installed)</p>'
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'


def _scores(reports: list[GradeReport], modules: list[str]) -> str:
    def cell(value: float | None, fmt: str) -> str:
        return "-" if value is None else _e(format(value, fmt))

    rows = [[_e(s.label), cell(s.mean, ".2f"), cell(s.median, ".2f"), cell(s.full, ".0%"), _e(f"{s.top:g}")]
            for s in class_stats.score_lines(reports, modules)]
    return _table(["problem", "mean", "median", "full marks", "max"], rows, {1, 2, 3, 4})


def _pass_rates(reports: list[GradeReport], modules: list[str]) -> str:
    parts = []
    for module, rates in class_stats.pass_rates(reports, modules).items():
        rows = [[f'<div class="bar{" low" if r.share < LOW else ""}"><div style="width:{100 * r.share:.0f}%"></div></div>', _e(f"{r.share:.0%}"),
                 _e(f"{r.passed}/{r.graded}"), _e(r.test), _e(f"{r.points:g}")] for r in rates]
        parts.append(f"<h3>{_e(module)}</h3>" + _table(["", "passed", "submissions", "test", "points"], rows, {1, 2, 4}))
    return "".join(parts)


def _mistakes(reports: list[GradeReport], modules: list[str]) -> str:
    parts = []
    for module, counts in class_stats.mistake_counts(reports, modules).items():
        parts.append(f"<h3>{_e(module)}</h3>")
        if not counts:
            parts.append('<p class="muted">No known mistake matched.</p>')
            continue
        rows = [[_e(c.submissions), f"<code>{_e(c.mistake)}</code>", _e(c.hint), _e(", ".join(c.tests))] for c in counts]
        parts.append(_table(["submissions", "mistake", "hint shown to students", "tests where it showed"], rows, {0}))
    return "".join(parts)


def _slowest(named: dict[str, GradeReport], roster: Roster | None) -> str:
    def who(name: str) -> str:
        entry = roster.get(name) if roster else None
        return _e(", ".join(s.name or s.email or s.sid for s in entry.students)) if entry and entry.students else ""

    rows = [[_e(f"{r.seconds:.1f} s"), _e(name), who(name), _e(status(r))] for name, r in class_stats.slowest(named, SLOWEST)]
    return _table(["time", "submission", "students", "status"], rows, {0})


def render(named: dict[str, GradeReport], modules: list[str], plots: dict[str, bytes | None], roster: Roster | None = None,
           title: str = "Grades") -> str:
    """The page; ``plots`` holds the PNGs ``totals`` and ``problems`` (see ``reports.plots``)."""
    reports = [named[name] for name in sorted(named)]
    body = [
        f"<h1>{_e(title)}</h1><p>{len(reports)} submissions.</p>",
        "<h2>Scores</h2>", _scores(reports, modules), _image(plots.get("totals"), "totals of all submissions"),
        "<h2>Scores per problem</h2>", _image(plots.get("problems"), "scores per problem"),
        "<h2>Tests passed</h2><p>Share of graded submissions passing each test, lowest first.</p>", _pass_rates(reports, modules),
        "<h2>Known mistakes</h2><p>Submissions whose output matched a known mistake's hint on at least one test, most first.</p>",
        _mistakes(reports, modules),
        "<h2>Slowest to grade</h2>", _slowest(named, roster),
    ]
    return ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_e(title)}</title><style>{STYLE}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
