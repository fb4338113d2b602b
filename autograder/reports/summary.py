"""summary.txt: the class at a glance, from score records (scores, pass rates, known mistakes, time)."""

from __future__ import annotations

from ..model.roster import Roster
from ..model.scores import GradeReport
from . import class_stats
from .csv_report import status
from .terminal import one_line

HINT_WIDTH = 100
SLOWEST = 5


def _number(value: float | None, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def score_table(reports: list[GradeReport], modules: list[str]) -> list[str]:
    """Mean, median and share of full marks per problem and for the total."""
    lines = [f"{'problem':<26} {'mean':>8} {'median':>8} {'full':>6} {'max':>6}"]
    for line in class_stats.score_lines(reports, modules):
        lines.append(f"{line.label:<26} {_number(line.mean, '8.2f'):>8} {_number(line.median, '8.2f'):>8} "
                     f"{_number(line.full, '6.0%'):>6} {line.top:>6g}")
    return lines


def pass_rate_lines(reports: list[GradeReport], modules: list[str]) -> list[str]:
    """Per problem, each test's share of graded submissions passing it, lowest first."""
    lines = ["Tests passed (share of the submissions whose module was graded, lowest first)"]
    for module, rates in class_stats.pass_rates(reports, modules).items():
        lines.append(f"  {module}")
        lines += [f"    {r.share:5.0%} {r.passed:>5}/{r.graded:<5} {r.test} ({r.points:g} pt)" for r in rates]
    return lines


def mistake_lines(named: dict[str, GradeReport], modules: list[str]) -> list[str]:
    """Per problem, each known mistake with the number of submissions whose output matched its hint, most first, and
    the submissions themselves."""
    lines = ["Known mistakes (submissions whose output matched the mistake's hint, most first)"]
    for module, counts in class_stats.mistake_counts(named, modules).items():
        lines.append(f"  {module}")
        for c in counts:
            hint = " ".join(c.hint.split())
            hint = hint if len(hint) <= HINT_WIDTH else hint[: HINT_WIDTH - 3] + "..."
            lines.append(
                f"    {c.submissions:>5}  {c.mistake}: {hint}" if hint else f"    {c.submissions:>5}  {c.mistake}"
            )
            lines.append(one_line(f"           in: {', '.join(c.names)}"))
        if not counts:
            lines.append("        -  no known mistake matched")
    return lines


def score_count_lines(reports: list[GradeReport], modules: list[str]) -> list[str]:
    """Per problem, how many graded submissions got each score (the histogram, as numbers)."""
    lines = ["Scores per problem (points: submissions)"]
    for module in modules:
        counts = class_stats.score_counts(reports, module)
        lines.append(f"  {module:<26} " + "   ".join(f"{points:g}: {n}" for points, n in counts.items()))
    return lines


def attention_lines(named: dict[str, GradeReport], roster: Roster | None = None) -> list[str]:
    """The submissions that scored zero, were not graded, could not be read or timed out, with the reasons."""
    found = class_stats.needs_attention(named, roster)
    lines = [
        f"Needs attention ({len(found)}: zero, not graded, could not read, a module missing, misnamed, found twice or "
        "failing to import, timed out, machine too busy)"
    ]
    for a in found:
        who = f" ({a.students})" if a.students else ""
        lines.append(one_line(f"  {a.submission}{who}: {a.total or '-'}: {'; '.join(a.reasons)}"))
    return lines if found else [*lines, "  none"]


def slowest_lines(named: dict[str, GradeReport]) -> list[str]:
    """The submissions that took longest to grade."""
    lines = ["Slowest to grade"]
    lines += [one_line(f"  {r.seconds:8.1f} s  {name}  {status(r)}") for name, r in class_stats.slowest(named, SLOWEST)]
    return lines


def render(named: dict[str, GradeReport], modules: list[str], roster: Roster | None = None) -> str:
    """The whole summary: scores, who needs attention, then pass rates, known mistakes, score counts and the slowest."""
    reports = [named[name] for name in sorted(named)]
    sections = [
        [f"{len(reports)} submissions", *score_table(reports, modules)],
        attention_lines(named, roster),
        pass_rate_lines(reports, modules),
        mistake_lines(named, modules),
        score_count_lines(reports, modules),
        slowest_lines(named),
    ]
    return "\n\n".join("\n".join(section) for section in sections)
