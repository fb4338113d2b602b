"""What the class got right and wrong, counted from score records: pass rates, known mistakes, score spreads, time.

Every figure is a count over records; nothing is graded again. A record the grader failed on
(no problems in it) has no tests, so it counts in none of the per-test or per-mistake figures.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from ..model.scores import GradeReport

FULL = 1e-9


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
    """How many submissions showed one known mistake's hint on at least one test, and on which tests."""

    problem: str
    mistake: str
    hint: str
    submissions: int
    tests: tuple[str, ...]


def pass_rates(reports: list[GradeReport], modules: list[str]) -> dict[str, list[PassRate]]:
    """Per problem, each test's pass count, lowest share first (ties in the tests' own order)."""
    counts: dict[tuple[str, str], list] = {}
    for report in reports:
        for problem in report.problems:
            for test in problem.tests:
                entry = counts.setdefault((problem.module, test.name), [test.max_points, 0, 0])
                entry[1] += test.passed
                entry[2] += 1
    rates = {m: [PassRate(m, t, *c) for (module, t), c in counts.items() if module == m] for m in modules}
    return {m: sorted(found, key=lambda r: r.share) for m, found in rates.items()}


def mistake_counts(reports: list[GradeReport], modules: list[str]) -> dict[str, list[MistakeCount]]:
    """Per problem, each known mistake some submission showed, most submissions first."""
    submissions: dict[tuple[str, str], int] = Counter()
    tests: dict[tuple[str, str], dict[str, None]] = {}
    hints: dict[tuple[str, str], str] = {}
    for report in reports:
        shown = set()
        for problem in report.problems:
            for test in problem.tests:
                for mistake, hint in test.mistakes.items():
                    shown.add((problem.module, mistake))
                    tests.setdefault((problem.module, mistake), {})[test.name] = None
                    hints[problem.module, mistake] = hints.get((problem.module, mistake)) or hint
        submissions.update(shown)
    found = {m: [] for m in modules}
    for (module, mistake), count in sorted(submissions.items(), key=lambda kv: (-kv[1], kv[0])):
        found.setdefault(module, []).append(MistakeCount(module, mistake, hints[module, mistake], count, tuple(tests[module, mistake])))
    return found


def score_counts(reports: list[GradeReport], module: str) -> dict[float, int]:
    """How many graded submissions got each score on ``module``, lowest score first."""
    counts = Counter(p.points for r in reports for p in r.problems if p.module == module)
    return dict(sorted(counts.items()))


def slowest(reports: dict[str, GradeReport], count: int = 5) -> list[tuple[str, GradeReport]]:
    """The ``count`` submissions that took longest to grade, slowest first."""
    return sorted(reports.items(), key=lambda kv: (-kv[1].seconds, kv[0]))[:count]
