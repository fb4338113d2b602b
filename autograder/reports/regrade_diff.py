"""What a regrade moved: the submissions whose score changed since an earlier run, by how much, and through which tests.

Both sides are score records (``records/<name>.json``), so the diff is exact and nothing is graded for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.roster import Roster
from ..model.scores import GradeReport, TestResult

SAME = 1e-9


@dataclass(frozen=True)
class ChangedTest:
    """One test whose points differ between the runs; ``""`` stands for a test that one run did not have."""

    test: str
    before: str
    after: str


@dataclass
class Change:
    """One submission whose total differs (None: the submission is in one run only)."""

    submission: str
    before: float | None
    after: float | None
    tests: list[ChangedTest] = field(default_factory=list)

    @property
    def delta(self) -> float:
        return (self.after or 0.0) - (self.before or 0.0)


def _points(test: TestResult) -> str:
    return f"{test.points:g}/{test.max_points:g}"


def _tests(report: GradeReport) -> dict[str, TestResult]:
    return {t.full_name: t for p in report.problems for t in p.tests}


def changed_tests(before: GradeReport, after: GradeReport) -> list[ChangedTest]:
    """The tests whose points or maximum differ, in the later run's order (then the ones it dropped)."""
    old, new = _tests(before), _tests(after)
    changed = [ChangedTest(name, _points(old[name]) if name in old else "", _points(t))
               for name, t in new.items() if name not in old or _points(old[name]) != _points(t)]
    return changed + [ChangedTest(name, _points(t), "") for name, t in old.items() if name not in new]


def compare(before: dict[str, GradeReport], after: dict[str, GradeReport]) -> list[Change]:
    """Every submission whose total changed, or that only one run graded, by submission name."""
    changes = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old is not None and new is not None and abs(old.points - new.points) <= SAME:
            continue
        tests = changed_tests(old, new) if old is not None and new is not None else []
        changes.append(Change(name, None if old is None else old.points, None if new is None else new.points, tests))
    return changes


def moved_tests_only(before: dict[str, GradeReport], after: dict[str, GradeReport]) -> list[str]:
    """Submissions whose total is the same but some test's points differ (a regrade that only moved points around)."""
    return [name for name in sorted(set(before) & set(after))
            if abs(before[name].points - after[name].points) <= SAME and changed_tests(before[name], after[name])]


def _who(name: str, roster: Roster | None) -> str:
    entry = roster.get(name) if roster else None
    if not entry or not entry.students:
        return name
    people = ", ".join(
        " ".join(x for x in (s.name, f"({s.sid})" if s.sid else "", f"<{s.email}>" if s.email else "") if x)
        for s in entry.students
    )
    return f"{people} [{name}]"


def _score(value: float | None) -> str:
    return "not graded" if value is None else f"{value:g}"


def maximum(reports: dict[str, GradeReport]) -> float | None:
    """The highest maximum score among ``reports`` (None for none)."""
    return max((r.max_points for r in reports.values() if r.problems), default=None)


def headline(
    changes: list[Change], against: str, graded: int, maxima: tuple[float | None, float | None] = (None, None)
) -> str:
    """One line: how many changed, by how much, and whether the maximum score moved."""
    deltas = sorted({round(c.delta, 9) for c in changes if c.before is not None and c.after is not None})
    if not deltas:
        by = ""
    elif len(deltas) == 1:
        by = f" by {deltas[0]:+g} each"
    else:
        by = f" by {deltas[0]:+g} to {deltas[-1]:+g}"
    before, after = maxima
    if before is None or after is None:
        top = ""
    elif abs(before - after) > SAME:
        top = f"; the maximum moved from {before:g} to {after:g}"
    else:
        top = f"; the maximum stayed {after:g}"
    return f"Regrade against {against}: {len(changes)} of {graded} submissions changed score{by}{top}."


def render(changes: list[Change], against: str, graded: int, roster: Roster | None = None, moved: list[str] = (),
           maxima: tuple[float | None, float | None] = (None, None)) -> str:
    """Text for staff: the headline, then one block per changed submission (its students, old -> new total, the tests
    that changed)."""
    lines = [headline(changes, against, graded, maxima)]
    for c in changes:
        lines.append(f"{_who(c.submission, roster)}: {_score(c.before)} -> {_score(c.after)} ({c.delta:+g})")
        lines += [f"    {t.test}: {t.before or 'absent'} -> {t.after or 'absent'}" for t in c.tests]
    if moved:
        lines.append(f"Same total, but some test's points or maximum changed: {', '.join(moved)}")
    return "\n".join(lines)
