"""Grade the reference, the stub, every known mistake and every fair alternative of a problem.

All variants of one problem share one worker (each staged under its own module name), so
validating a problem costs one torch import, not one per variant. The worker gets the memory the
manifest's Gradescope container leaves student code, so a variant that would fail there fails here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..grading import worker_memory
from ..grading.grader import grade_problem
from ..grading.runner import load_tests
from ..model import manifest
from ..model.manifest import Problem
from ..model.scores import ProblemResult
from ..sandbox.session import WorkerSession
from . import solutions, templating


@dataclass(frozen=True)
class Outcome:
    """How one variant fared, and whether that is what it should get."""

    label: str
    kind: str  # reference | stub | mistake | fair
    result: ProblemResult

    @property
    def as_expected(self) -> bool:
        full = self.result.points >= self.result.max_points - 1e-9
        if self.kind in ("reference", "fair"):
            return full
        if self.kind == "stub":
            return self.result.points == 0
        return not full

    @property
    def expectation(self) -> str:
        return {"reference": "full marks", "fair": "full marks", "stub": "zero", "mistake": "loses points"}[self.kind]


def variant_sources(problem: Problem) -> list[tuple[str, str, str]]:
    """(label, kind, source) for the reference, the stub, each mistake and each fair alternative."""
    reference = solutions.reference_path(problem.module).read_text(encoding="utf-8")
    found = [("reference", "reference", reference), ("stub", "stub", templating.stub_source(reference))]
    found += [(f"mistake:{v.name}", "mistake", v.source()) for v in solutions.mistakes(problem.module)]
    found += [(f"fair:{v.name}", "fair", v.source()) for v in solutions.fair_alternatives(problem.module)]
    return found


def grade_variants(problem: Problem, variants: list[tuple[str, str, str]] | None = None) -> list[Outcome]:
    """Grade every variant of ``problem`` with its public and hidden tests."""
    variants = variant_sources(problem) if variants is None else variants
    tests = load_tests(problem, include_hidden=True)
    names = {label: f"{problem.module}__{re.sub(r'[^0-9a-zA-Z_]', '_', label)}" for label, _, _ in variants}
    sources = {names[label]: source.encode() for label, _, source in variants}
    # The room Gradescope's container gives (not the problem's own, larger limit): what fails there fails here.
    session = WorkerSession(memory_mb=min(problem.limits.memory_mb, worker_memory.gradescope_room(manifest.load()).mb), start_now=True)
    try:
        session.switch(session.stage(sources))
        return [Outcome(label, kind, grade_problem(problem, tests, session, worker_name=names[label])) for label, kind, _ in variants]
    finally:
        session.close()
