"""Score records: what every report renders. Nothing downstream recomputes a score."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


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
    # Known mistakes (file names under assignments/<problem>/mistakes/) whose hint the failure message shows.
    mistakes: list[str] = field(default_factory=list)

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
    status: str = "ok"
    output: str = ""

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
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def points(self) -> float:
        return sum(p.points for p in self.problems)

    @property
    def max_points(self) -> float:
        return sum(p.max_points for p in self.problems)

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
            tests = [TestResult(**t) for t in p["tests"]]
            problems.append(ProblemResult(p["module"], p["title"], tests, p.get("status", "ok"), p.get("output", "")))
        return cls(data["submission"], problems, list(data.get("notes", [])), float(data.get("seconds", 0.0)))
