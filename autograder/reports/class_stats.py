"""What the class got right and wrong, counted from score records: pass rates, known mistakes, score spreads, time.

Every figure is a count over records; nothing is graded again. Pass rates count graded modules only: a
module that is missing, unreadable or failed to import says nothing about which test is hard. A record the
grader failed on (no problems in it) counts in none of the per-test or per-mistake figures, and shows in the
"needs attention" list with the submissions that scored zero, could not be read, timed out, or were timed on a machine
too busy to time them fairly (a rerun is due).
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from ..model import scores
from ..model.roster import Roster
from ..model.scores import GradeReport

FULL = 1e-9
# The kinds of a failed call (sandbox.errors) that mean the code ran out of time.
TIMED_OUT = ("timeout", "budget", "skipped")
# The kinds that mean the grading machine was too busy or slow to time the code fairly: a rerun is due, not a zero.
MACHINE_SLOW = ("busy", "busy_not_run", "deadline")


@dataclass(frozen=True)
class ScoreLine:
    """Mean, median and share of full marks of one problem (or of the total) over graded submissions."""

    label: str
    mean: float | None
    median: float | None
    full: float | None
    top: float


def score_lines(reports: list[GradeReport], modules: list[str]) -> list[ScoreLine]:
    """One line per problem, then one for the total."""
    lines = []
    for module in modules:
        found = [p for r in reports for p in r.problems if p.module == module]
        lines.append(_score_line(module, [p.points for p in found], max((p.max_points for p in found), default=0.0)))
    lines.append(_score_line("TOTAL", [r.points for r in reports], max((r.max_points for r in reports), default=0.0)))
    return lines


def _score_line(label: str, scores: list[float], top: float) -> ScoreLine:
    if not scores:
        return ScoreLine(label, None, None, None, top)
    full = sum(s >= top - FULL for s in scores) / len(scores)
    return ScoreLine(label, statistics.fmean(scores), statistics.median(scores), full, top)


@dataclass(frozen=True)
class PassRate:
    """How many graded submissions pass one test."""

    problem: str
    test: str
    points: float
    passed: int
    graded: int

    @property
    def share(self) -> float:
        return self.passed / self.graded if self.graded else 0.0


@dataclass(frozen=True)
class MistakeCount:
    """How many submissions showed one known mistake's hint on at least one test, on which tests, and which
    submissions."""

    problem: str
    mistake: str
    hint: str
    submissions: int
    tests: tuple[str, ...]
    names: tuple[str, ...] = ()  # the submissions that showed it, by name


def pass_rates(reports: list[GradeReport], modules: list[str]) -> dict[str, list[PassRate]]:
    """Per problem, each test's pass count, lowest share first (ties in the tests' own order)."""
    counts: dict[tuple[str, str], list] = {}
    for report in reports:
        for problem in report.problems:
            if problem.kind != scores.GRADED:
                continue
            for test in problem.tests:
                entry = counts.setdefault((problem.module, test.name), [test.max_points, 0, 0])
                entry[1] += test.passed
                entry[2] += 1
    rates = {m: [PassRate(m, t, *c) for (module, t), c in counts.items() if module == m] for m in modules}
    return {m: sorted(found, key=lambda r: r.share) for m, found in rates.items()}


def mistake_counts(
    reports: dict[str, GradeReport] | list[GradeReport], modules: list[str]
) -> dict[str, list[MistakeCount]]:
    """Per problem, each known mistake some submission showed, most submissions first, with those submissions (by name
    in a dict of records; by their path in a list)."""
    named = reports if isinstance(reports, dict) else {r.submission: r for r in reports}
    matched: dict[tuple[str, str], list[str]] = {}
    tests: dict[tuple[str, str], dict[str, None]] = {}
    hints: dict[tuple[str, str], str] = {}
    for name in sorted(named):
        shown = {}
        for problem in named[name].problems:
            for test in problem.tests:
                for mistake, hint in test.mistakes.items():
                    shown[problem.module, mistake] = None
                    tests.setdefault((problem.module, mistake), {})[test.name] = None
                    hints[problem.module, mistake] = hints.get((problem.module, mistake)) or hint
        for key in shown:
            matched.setdefault(key, []).append(name)
    found = {m: [] for m in modules}
    for (module, mistake), names in sorted(matched.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        found.setdefault(module, []).append(MistakeCount(module, mistake, hints[module, mistake], len(names),
                                                         tuple(tests[module, mistake]), tuple(names)))
    return found


def score_counts(reports: list[GradeReport], module: str) -> dict[float, int]:
    """How many graded submissions got each score on ``module``, lowest score first."""
    counts = Counter(p.points for r in reports for p in r.problems if p.module == module)
    return dict(sorted(counts.items()))


def slowest(reports: dict[str, GradeReport], count: int = 5) -> list[tuple[str, GradeReport]]:
    """The ``count`` submissions that took longest to grade, slowest first."""
    return sorted(reports.items(), key=lambda kv: (-kv[1].seconds, kv[0]))[:count]


@dataclass(frozen=True)
class Attention:
    """A submission staff should look at, and why (one reason per fact, most serious first)."""

    submission: str
    students: str
    total: str
    reasons: tuple[str, ...]


def reasons_for(report: GradeReport) -> list[str]:
    """What staff should know about one submission, one reason per fact, most serious first; empty when nothing is
    wrong. grades.csv's status column and the summary's "needs attention" both show these, so they never disagree."""
    if not report.problems:
        return [f"not graded: the grader failed ({report.notes[0] if report.notes else 'no record'})"]
    found = unreadable_reasons(report)
    found += [f"not graded: {p.module}: {p.status}" for p in report.problems if p.kind == scores.NOT_GRADED]
    found += _packaging(report)
    slow = {p.module: sum(t.failure in MACHINE_SLOW for t in p.tests) for p in report.problems}
    found += [f"rerun: the machine was too busy or slow to time {module} fairly ({n} test{'s' * (n != 1)})"
              for module, n in slow.items() if n]
    unjudged = {p.module: sum(t.failure == scores.NO_EXPECTED for t in p.tests) for p in report.problems}
    found += [f"regrade: the grader had no expected value for {n} test{'s' * (n != 1)} of {module} (its fault)"
              for module, n in unjudged.items() if n]
    timed = {p.module: sum(t.failure in TIMED_OUT for t in p.tests) for p in report.problems}
    found += [f"timed out: {module} ({n} test{'s' * (n != 1)})" for module, n in timed.items() if n]
    if report.points <= FULL and not report.unreadable and not _all_missing(report):  # that one says "scored 0" itself
        found.append("scored 0")
    return found


def unreadable_reasons(report: GradeReport) -> list[str]:
    """What the grader could not read of the submission (damaged bytes: the download's fault, not the student's)."""
    unread = report.unreadable
    if unread and len(unread) == len(report.problems) and len({p.status for p in unread}) == 1:
        return [f"could not read: {unread[0].status}"]  # the whole submission
    return [f"could not read {p.module}: {p.status}" for p in unread]


def _all_missing(report: GradeReport) -> bool:
    return all(p.kind == scores.MISSING for p in report.problems)


def _packaging(report: GradeReport) -> list[str]:
    """The problems the student's packaging cost: a module missing, misnamed, found twice or not usable, failing to
    import."""
    if _all_missing(report):
        return ["scored 0: no module file found"]
    missing = [p.module for p in report.problems if p.kind == scores.MISSING]
    found = [f"missing {', '.join(f'{m}.py' for m in missing)}"] if missing else []
    found += [f"{p.module}: {p.status}" for p in report.problems if p.kind in (scores.MISNAMED, scores.PACKAGING)]
    found += [
        f"{p.module} could not be imported: {p.status}" for p in report.problems if p.kind == scores.IMPORT_FAILED
    ]
    return found


def needs_attention(named: dict[str, GradeReport], roster: Roster | None = None) -> list[Attention]:
    """Submissions that scored zero, were not graded (no folder, a refused name, a grader failure), could not be
    read, lost a problem to their packaging, or timed out, by name; each with its reasons (``reasons_for``) and
    students."""

    def who(name: str) -> str:
        entry = roster.get(name) if roster else None
        return ", ".join(s.name or s.email or s.sid for s in entry.students) if entry and entry.students else ""

    found = []
    for name in sorted(set(named) | set(roster or {})):
        report, entry = named.get(name), (roster or {}).get(name)
        if report is None:
            if entry is not None and entry.missing:
                found.append(Attention(name, who(name), "", (entry.note,)))
            continue
        found += [Attention(name, who(name), f"{report.points:g}", tuple(why)) for why in [reasons_for(report)] if why]
    return found
