"""summary.html: the class at a glance in one self-contained page (inline CSS and PNGs, no script, works offline).

Rendered from ``templates/summary.html.j2`` by Jinja2 with autoescaping on: every string that comes from a
submission or the roster (names, statuses, file names, hints) is escaped by the template engine, not by hand.
"""

from __future__ import annotations

import base64
from pathlib import Path

import jinja2

from ..model.roster import Roster
from ..model.scores import GradeReport
from . import class_stats
from .csv_report import status

SLOWEST = 10
LOWEST = 10  # the tests passed least, shown first; every other test is in its problem's collapsed table
LOW = 0.5  # pass rates below this are drawn in red
TEMPLATES = Path(__file__).resolve().parent / "templates"


def environment() -> jinja2.Environment:
    """The reports' templates, autoescaped (a missing variable is an error, not an empty string)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def _who(name: str, roster: Roster | None) -> str:
    entry = roster.get(name) if roster else None
    return ", ".join(s.name or s.email or s.sid for s in entry.students) if entry and entry.students else ""


def _number(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def render(
    named: dict[str, GradeReport],
    modules: list[str],
    plots: dict[str, bytes | None],
    roster: Roster | None = None,
    title: str = "Grades",
) -> str:
    """The page; ``plots`` holds the PNGs ``totals`` and ``problems`` (see ``reports.plots``)."""
    reports = [named[name] for name in sorted(named)]
    scores = [
        {
            "label": s.label,
            "mean": _number(s.mean, ".2f"),
            "median": _number(s.median, ".2f"),
            "full": _number(s.full, ".0%"),
            "top": f"{s.top:g}",
        }
        for s in class_stats.score_lines(reports, modules)
    ]
    slowest = [{"time": f"{r.seconds:.1f} s", "name": name, "students": _who(name, roster), "status": status(r)}
               for name, r in class_stats.slowest(named, SLOWEST)]
    pngs = {key: base64.b64encode(png).decode("ascii") if png else "" for key, png in plots.items()}
    pass_rates = class_stats.pass_rates(reports, modules)
    lowest = sorted((r for rates in pass_rates.values() for r in rates if r.passed < r.graded), key=lambda r: r.share)[
        :LOWEST
    ]
    return (
        environment()
        .get_template("summary.html.j2")
        .render(
            title=title,
            count=len(reports),
            scores=scores,
            totals=pngs.get("totals", ""),
            problems=pngs.get("problems", ""),
            attention=class_stats.needs_attention(named, roster),
            pass_rates=pass_rates,
            lowest=lowest,
            mistakes=class_stats.mistake_counts(named, modules),
            slowest=slowest,
            low=LOW,
        )
    )
