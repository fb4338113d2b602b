"""Who watches a grading run: one small protocol instead of a callback per event.

The run (``grader.grade``) tells its observers four things, in this order: a problem started, a problem
finished (with the report so far, so a grader that dies leaves what it graded), a call was refused by the
time rules (stopped at its limit or not run, by kind), and the run ended (with the whole report). An observer
overrides the events it cares about; the others do nothing. A door (``grade``, ``check``, ``grade-all``, the
zip's entry point, the notebook) chooses its observers; none of them grades differently.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..model.manifest import Problem
from ..model.scores import GradeReport, ProblemResult


class Observer:
    """One watcher of a grading run; every event does nothing unless overridden."""

    def problem_started(self, problem: Problem) -> None:
        """``problem``'s tests are about to run (its module is staged, or is missing)."""

    def problem_finished(self, result: ProblemResult, so_far: GradeReport) -> None:
        """``result`` is final; ``so_far`` holds every problem, those not graded yet marked as such."""

    def call_refused(self, kind: str) -> None:
        """A call was stopped at its time limit or not run by the time rules (``sandbox.errors`` kinds)."""

    def run_ended(self, report: GradeReport) -> None:
        """The run is over; ``report`` is what every report renders."""


class Observers(Observer):
    """Several observers as one: each event goes to each, in the order given."""

    def __init__(self, observers: Iterable[Observer] = ()) -> None:
        self.observers = list(observers)

    def problem_started(self, problem: Problem) -> None:
        for observer in self.observers:
            observer.problem_started(problem)

    def problem_finished(self, result: ProblemResult, so_far: GradeReport) -> None:
        for observer in self.observers:
            observer.problem_finished(result, so_far)

    def call_refused(self, kind: str) -> None:
        for observer in self.observers:
            observer.call_refused(kind)

    def run_ended(self, report: GradeReport) -> None:
        for observer in self.observers:
            observer.run_ended(report)
