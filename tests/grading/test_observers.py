"""The grading run's observers: what each is told, in which order, for each purpose."""

from __future__ import annotations

import shutil

from autograder.grading import grader
from autograder.grading.observers import Observer, Observers
from autograder.model import paths, scores


class Log(Observer):
    def __init__(self) -> None:
        self.events: list[tuple] = []

    def problem_started(self, problem) -> None:
        self.events.append(("started", problem.module))

    def problem_finished(self, result, so_far) -> None:
        self.events.append(("finished", result.module, [p.kind for p in so_far.problems]))

    def call_refused(self, kind: str) -> None:
        self.events.append(("refused", kind))

    def run_ended(self, report) -> None:
        self.events.append(("ended", report.points))


def test_observers_see_each_problem_start_and_finish_then_the_end(assignment, tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    shutil.copy(paths.REFERENCE / "receptive_field.py", folder)  # complexity is missing
    first, second = Log(), Log()
    report = grader.grade(folder, assignment, grader.Purpose.GRADING, modules=["receptive_field", "complexity"],
                          observers=[Observers([first]), second])
    assert first.events == second.events
    assert first.events == [
        ("started", "receptive_field"), ("finished", "receptive_field", [scores.GRADED, scores.NOT_GRADED]),
        ("started", "complexity"), ("finished", "complexity", [scores.GRADED, scores.MISSING]),
        ("ended", report.points),
    ]
    assert report.points == assignment.problem("receptive_field").points


def test_a_self_check_runs_public_tests_only_and_an_unreadable_submission_still_ends_the_run(assignment, tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    shutil.copy(paths.REFERENCE / "receptive_field.py", folder)
    report = grader.grade(folder, assignment, grader.Purpose.SELF_CHECK, modules=["receptive_field"])
    assert report.problems[0].tests and not any(t.hidden for t in report.problems[0].tests)
    log = Log()
    report = grader.grade(tmp_path / "absent", assignment, grader.Purpose.GRADING, modules=["receptive_field"], observers=[log])
    assert log.events == [("ended", 0.0)] and report.problems[0].kind == scores.UNREADABLE
