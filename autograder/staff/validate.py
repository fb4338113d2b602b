"""The tests' own check: grade the reference, the stub, every known mistake and every fair alternative of a problem.

Per problem: reference full marks, stub zero, each mistake loses points, each fair alternative keeps them, a mistake
inside an otherwise complete reference submission costs points on its own problem only, and the committed stub equals
the one generated from the reference, and no test's judging pass makes a live call (a test that judges before the
student's calls are over gives up the timing protection of the two passes). Optionally the Gradescope zip is built and
run with ``otter run``.

All variants of one problem share one worker (each staged under its own module name), so
validating a problem costs one torch import, not one per variant. The worker gets the memory the
manifest's Gradescope container leaves student code, so a variant that would fail there fails here.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..expected import records
from ..gradescope import build, otter_run
from ..grading import grader, time_rules, worker_memory
from ..grading.grader import grade_problem
from ..grading.runner import TestSpec, load_tests
from ..model import manifest, paths
from ..model.manifest import Assignment, Problem
from ..model.scores import ProblemResult
from ..sandbox import WorkerSession, errors
from . import solutions, templates


@dataclass(frozen=True)
class Outcome:
    """How one variant fared, and whether that is what it should get."""

    label: str
    kind: str  # reference | stub | mistake | fair
    result: ProblemResult
    judged_early: tuple[str, ...] = ()  # the tests that judged before this variant's calls were over

    @property
    def as_expected(self) -> bool:
        full = self.result.points >= self.result.max_points - 1e-9
        if self.kind in ("reference", "fair"):
            return full
        if self.kind == "stub":
            return self.result.points == 0
        return not full

    @property
    def machine_slow(self) -> bool:
        """Whether a test failed because the machine was too busy or slow to time the code (a rerun is due, no
        verdict)."""
        return any(t.failure in errors.MACHINE for t in self.result.tests)

    @property
    def expectation(self) -> str:
        return {"reference": "full marks", "fair": "full marks", "stub": "zero", "mistake": "loses points"}[self.kind]


def variant_sources(problem: Problem) -> list[tuple[str, str, str]]:
    """(label, kind, source) for the reference, the stub, each mistake and each fair alternative."""
    reference = solutions.reference_path(problem.module).read_text(encoding="utf-8")
    found = [("reference", "reference", reference), ("stub", "stub", templates.stub_source(reference))]
    found += [(f"mistake:{v.name}", "mistake", v.source()) for v in solutions.mistakes(problem.module)]
    found += [(f"fair:{v.name}", "fair", v.source()) for v in solutions.fair_alternatives(problem.module)]
    return found


def grade_variants(problem: Problem, variants: list[tuple[str, str, str]] | None = None) -> list[Outcome]:
    """Grade every variant of ``problem`` with its public and hidden tests."""
    variants = variant_sources(problem) if variants is None else variants
    tests = load_tests(problem, include_hidden=True)
    names = {label: f"{problem.module}__{re.sub(r'[^0-9a-zA-Z_]', '_', label)}" for label, _, _ in variants}
    sources = {names[label]: source.encode() for label, _, source in variants}
    # The room Gradescope's container gives (not the assignment's larger worker_memory_mb): what fails there fails here.
    session = WorkerSession(memory_mb=worker_memory.gradescope_room(manifest.load()).mb, start_now=True)
    try:
        session.switch(session.stage(sources))
        return [_graded(problem, tests, session, label, kind, names[label]) for label, kind, _ in variants]
    finally:
        session.close()


def _graded(
    problem: Problem, tests: list[TestSpec], session: WorkerSession, label: str, kind: str, name: str
) -> Outcome:
    early: list[str] = []
    result = grade_problem(problem, tests, session, worker_name=name, judged_early=lambda spec: early.append(spec.name))
    return Outcome(label, kind, result, tuple(early))


@dataclass(frozen=True)
class Row:
    """One line of a problem's table."""

    variant: str
    expectation: str
    score: str
    ok: bool


def variant_rows(problem: Problem) -> list[Row]:
    """Reference, stub, mistakes and fair alternatives, graded with public and hidden tests, then the two passes'
    row."""
    outcomes = grade_variants(problem)
    rows = [
        Row(
            o.label,
            o.expectation,
            f"{o.result.points:g}/{o.result.max_points:g}"
            + (" (the machine was too busy to time it: rerun)" if o.machine_slow and not o.as_expected else ""),
            o.as_expected,
        )
        for o in outcomes
    ]
    return rows + [two_passes_row(outcomes)]


def two_passes_row(outcomes: list[Outcome]) -> Row:
    """Every test judged on the calls its first pass recorded; else the tests that judged early, by variant.

    A test that judged something before the student's calls were over (a bare ``assert`` on a student's result) lets
    what the student's code sees of its calls depend on whether an answer was right. Use the checks of
    ``autograder.testkit`` (``Call.matches``, ``expect_*``), which the first pass defers."""
    early = sorted({(test, o.label) for o in outcomes for test in o.judged_early})
    shown = "; ".join(f"test {test} judged early on {label}" for test, label in early)
    return Row("two passes", "every test judged after the student's calls", shown or "all", not early)


def isolation_row(problem: Problem, assignment: Assignment, workdir: Path) -> Row | None:
    """Grade the first mistake of ``problem`` inside a full reference submission: only its problem may lose points."""
    found = solutions.mistakes(problem.module)
    if not found or len(assignment.problems) < 2:
        return None
    mistake = found[0]
    folder = workdir / f"isolation_{problem.module}"
    folder.mkdir()
    for module in assignment.modules:
        source = (
            mistake.source()
            if module == problem.module
            else solutions.reference_path(module).read_text(encoding="utf-8")
        )
        (folder / f"{module}.py").write_text(source, encoding="utf-8")
    report = grader.grade(folder, assignment, grader.Purpose.VALIDATION)
    others = [p for p in report.problems if p.module != problem.module]
    own = next(p for p in report.problems if p.module == problem.module)
    short = [f"{p.module} {p.points:g}/{p.max_points:g}" for p in others if p.points < p.max_points - 1e-9]
    ok = not short and own.points < own.max_points - 1e-9
    score = f"own {own.points:g}/{own.max_points:g}; " + (", ".join(short) if short else "others full")
    return Row(f"only-there:{mistake.name}", "loses points on its problem only", score, ok)


def template_row(problem: Problem) -> Row:
    """The committed stub equals the stub generated from the reference."""
    reference = solutions.reference_path(problem.module).read_text(encoding="utf-8")
    stub = paths.TEMPLATES / f"{problem.module}.py"
    in_sync = stub.is_file() and stub.read_text(encoding="utf-8") == templates.stub_source(reference)
    return Row(
        "template",
        "in sync with reference",
        "same" if in_sync else ("missing" if not stub.is_file() else "differs"),
        in_sync,
    )


def zip_rows(assignment: Assignment, workdir: Path) -> list[Row]:
    """Build the Gradescope zip, check it holds every test file, and grade the reference with ``otter run``."""
    zip_path = build.build_autograder_zip(workdir / "autograder.zip")
    with zipfile.ZipFile(zip_path) as zf:
        names = set(zf.namelist())
    wanted = [
        f"{otter_run.HARNESS}/assignments/{path.relative_to(paths.ASSIGNMENTS).as_posix()}"
        for p in assignment.problems for path, _ in p.test_files(include_hidden=True)
    ]
    missing = [w for w in wanted if w not in names]
    rows = [
        Row("zip:test files", f"all {len(wanted)} present", f"{len(wanted) - len(missing)}/{len(wanted)}", not missing)
    ]
    ref_zip = workdir / "reference.zip"
    with zipfile.ZipFile(ref_zip, "w") as zf:
        for module in assignment.modules:
            zf.write(solutions.reference_path(module), f"{module}.py")
    out = workdir / "otter-run"
    out.mkdir()
    # From the project's folder: otter imports the zip's plugin (in autograder.gradescope.otter_run) from there.
    proc = subprocess.run(otter_run.command(zip_path, ref_zip, out), cwd=paths.ROOT, capture_output=True, text=True,
                          timeout=1800)
    results = out / "results.json"
    score = json.loads(results.read_text())["score"] if results.is_file() else None
    shown = "no results.json" if score is None else f"{score:g}/{assignment.total_points:g}"
    rows.append(
        Row(
            "zip:otter run reference",
            "full marks",
            shown,
            proc.returncode == 0 and score is not None and abs(score - assignment.total_points) < 1e-9,
        )
    )
    return rows


@dataclass(frozen=True)
class Table:
    """One table of the validation: a problem's rows, or the zip's."""

    title: str
    rows: list[Row]
    note: str = ""  # what to do about a MISS, when the rows cannot say it

    @property
    def misses(self) -> int:
        return sum(not r.ok for r in self.rows)


def problem_table(problem: Problem, assignment: Assignment, workdir: Path) -> Table:
    """Reference, stub, mistakes, fair variants, the first mistake inside a full submission, the template."""
    rows = variant_rows(problem)
    isolation = isolation_row(problem, assignment, workdir)
    rows += [isolation] if isolation else []
    rows.append(template_row(problem))
    return Table(f"{problem.module} — {problem.title}", rows)


def time_table(assignment: Assignment) -> Table:
    """The worst case of any submission, with a minute for the grader's own work, ends before Gradescope's deadline."""
    worst = time_rules.time_bound(assignment) + time_rules.GRADER_SECONDS
    deadline = time_rules.deadline_seconds(assignment)
    row = Row("worst case + grader", f"<= the deadline, {deadline:g} s", f"{worst:g} s", worst <= deadline)
    return Table("Time rules", [row], time_rules.bound_problem(assignment) or "")


def tables(assignment: Assignment, modules: list[str] | None = None, with_zip: bool = False) -> Iterator[Table]:
    """The tables of a validation, one per problem (and one for the Gradescope zip), each as soon as it is graded."""
    records.preload(assignment.modules)  # a reference that cannot be recorded stops the validation here, said once
    workdir = Path(tempfile.mkdtemp(prefix="autograder-validate-"))
    try:
        yield time_table(assignment)
        for problem in assignment.problems:
            if modules is None or problem.module in modules:
                yield problem_table(problem, assignment, workdir)
        if with_zip:
            yield Table("Gradescope zip", zip_rows(assignment, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
