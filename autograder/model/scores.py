"""Score records: what every report renders. Nothing downstream recomputes a score or reads a message to learn a fact.

What a report counts travels as data: a problem's ``kind`` (why it could not be graded), a test's known
``mistakes`` with their hints and the labelled ``details`` of its failure, and the staff's notes kept apart from
the notes a student reads.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

# A problem's kind: graded, or why it could not be.
GRADED = "ok"
MISSING = "missing"          # the module file is not in the submission
MISNAMED = "misnamed"        # the module file is not in the submission, but a file whose name is close to it is
PACKAGING = "packaging"      # the module file is there but cannot be used as submitted (found twice, a link, too large)
UNREADABLE = "unreadable"    # the file, or the whole submission, could not be read (a damaged zip or download)
IMPORT_FAILED = "import"     # the module could not be imported (or broke its process while it was)
NOT_GRADED = "not_graded"    # the grader stopped before this problem
OTHER = "other"              # a record written before kinds existed
# A test's failure kind (beside the call kinds of sandbox.errors): the grader had no recorded expected value for a call
# the test made, so the test could not be judged: the grader's fault, reported to staff; a regrade is due once recorded.
NO_EXPECTED = "no_expected"
# The labelled parts of a failure, in the order students read them.
DETAIL_LABELS = ("Called", "Expected", "Got", "Where", "Hint")


@dataclass
class TestResult:
    """One test case of one problem."""

    problem: str
    name: str
    max_points: float
    hidden: bool
    passed: bool
    message: str = ""
    seconds: float = 0.0
    # Known mistakes (file names under assignments/<problem>/mistakes/) whose hint the failure message shows: name ->
    # hint.
    mistakes: dict[str, str] = field(default_factory=dict)
    # The failure in labelled parts (DETAIL_LABELS) where the check gave them; else empty and ``message`` says it all.
    details: dict[str, str] = field(default_factory=dict)
    # The kind of the student call that failed the test (``timeout``, ``crash``, ...: sandbox.errors), NO_EXPECTED, or
    # "".
    failure: str = ""

    @property
    def points(self) -> float:
        return self.max_points if self.passed else 0.0

    @property
    def full_name(self) -> str:
        return f"{self.problem}: {self.name}"


@dataclass
class ProblemResult:
    """All tests of one problem, plus what the student should know about the module as a whole."""

    module: str
    title: str
    tests: list[TestResult] = field(default_factory=list)
    status: str = "ok"  # what the student reads about the module as a whole
    output: str = ""  # what its code printed while no hidden test ran (what the student may see)
    kind: str = GRADED  # why the module could not be graded (see the kinds above), or GRADED
    hidden_printed: dict[str, int] = field(
        default_factory=dict
    )  # hidden test -> bytes its calls printed (never the text)
    staff_output: str = ""  # everything its code printed, hidden tests' too: for staff only

    @property
    def points(self) -> float:
        return sum(t.points for t in self.tests)

    @property
    def max_points(self) -> float:
        return sum(t.max_points for t in self.tests)


@dataclass
class GradeReport:
    """A graded submission."""

    submission: str
    problems: list[ProblemResult]
    notes: list[str] = field(default_factory=list)  # for the student (ignored files, an unreadable submission)
    seconds: float = 0.0
    staff_notes: list[str] = field(
        default_factory=list
    )  # for staff only: the protections in force, the worker's memory
    # What graded it (see grading.fingerprint): one digest per problem (its tests, points, recorded values) and one for
    # the harness; empty in a record written before fingerprints were kept (so it is never taken as current).
    fingerprint: dict[str, str] = field(default_factory=dict)

    @property
    def points(self) -> float:
        return sum(p.points for p in self.problems)

    @property
    def max_points(self) -> float:
        return sum(p.max_points for p in self.problems)

    @property
    def unreadable(self) -> list[ProblemResult]:
        """The problems the grader could not read (a damaged file, an unreadable zip): their score says nothing."""
        return [p for p in self.problems if p.kind == UNREADABLE]

    @property
    def grader_faults(self) -> list[TestResult]:
        """The tests the grader could not judge for want of a recorded expected value (its fault: a regrade is due)."""
        return [t for p in self.problems for t in p.tests if t.failure == NO_EXPECTED]

    @property
    def all_passed(self) -> bool:
        return all(t.passed for p in self.problems for t in p.tests)

    def to_dict(self) -> dict:
        """A plain dict (for caching and tests)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> GradeReport:
        """The inverse of ``to_dict``; records written before a field existed get its default."""
        problems = []
        for p in data["problems"]:
            tests = [TestResult(**dict(t, mistakes=_mistakes(t.get("mistakes")))) for t in p["tests"]]
            status = p.get("status", "ok")
            kind = p.get("kind", GRADED if status == "ok" else OTHER)
            problems.append(ProblemResult(p["module"], p["title"], tests, status, p.get("output", ""), kind,
                                          dict(p.get("hidden_printed") or {}), p.get("staff_output", "")))
        return cls(data["submission"], problems, list(data.get("notes", [])), float(data.get("seconds", 0.0)),
                   list(data.get("staff_notes", [])), dict(data.get("fingerprint") or {}))


def _mistakes(value: dict | list | None) -> dict[str, str]:
    """Records written before hints were kept list the mistakes' names only."""
    if isinstance(value, dict):
        return dict(value)
    return dict.fromkeys(value or [], "")
