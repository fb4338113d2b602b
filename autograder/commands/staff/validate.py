"""``python -m autograder validate``: staff check that every problem's tests grade what they should.

Per problem: reference full marks, stub zero, each mistake loses points, each fair alternative
keeps them, a mistake inside an otherwise complete reference submission costs points on its
own problem only, and the committed stub equals the one generated from the reference.
Optionally (``--with-zip``) the Gradescope zip is built and run with ``otter run``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ...grading import grader
from ...model import manifest, paths
from ...model.manifest import Assignment, Problem
from ...staff import solutions, templating, validation
from ..common import known_problems

NAME = "validate"
HELP = "staff: check every problem's tests grade reference, stubs, mistakes and fair variants right"
DESCRIPTION = ("Reference full marks, stub zero, every mistake loses points (on its own problem only), every fair "
               "alternative full marks, templates in sync. One table per problem; exit 1 on any MISS.")


@dataclass(frozen=True)
class Row:
    """One line of a problem's table."""

    variant: str
    expectation: str
    score: str
    ok: bool


def variant_rows(problem: Problem) -> list[Row]:
    """Reference, stub, mistakes and fair alternatives, graded with public and hidden tests."""
    return [Row(o.label, o.expectation, f"{o.result.points:g}/{o.result.max_points:g}", o.as_expected)
            for o in validation.grade_variants(problem)]


def isolation_row(problem: Problem, assignment: Assignment, workdir: Path) -> Row | None:
    """Grade the first mistake of ``problem`` inside a full reference submission: only its problem may lose points."""
    found = solutions.mistakes(problem.module)
    if not found or len(assignment.problems) < 2:
        return None
    mistake = found[0]
    folder = workdir / f"isolation_{problem.module}"
    folder.mkdir()
    for module in assignment.modules:
        source = mistake.source() if module == problem.module else solutions.reference_path(module).read_text(encoding="utf-8")
        (folder / f"{module}.py").write_text(source, encoding="utf-8")
    report = grader.grade(folder, assignment)
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
    in_sync = stub.is_file() and stub.read_text(encoding="utf-8") == templating.stub_source(reference)
    return Row("template", "in sync with reference", "same" if in_sync else ("missing" if not stub.is_file() else "differs"), in_sync)


def zip_rows(assignment: Assignment, workdir: Path) -> list[Row]:
    """Build the Gradescope zip, check it holds every test file, and grade the reference with ``otter run``."""
    from ...gradescope import build

    zip_path = build.build_autograder_zip(workdir / "autograder.zip")
    with zipfile.ZipFile(zip_path) as zf:
        names = set(zf.namelist())
    wanted = [f"tests/{p.module}_{path.stem}.py" for p in assignment.problems for path, _ in p.test_files(include_hidden=True)]
    missing = [w for w in wanted if w not in names]
    rows = [Row("zip:test files", f"all {len(wanted)} present", f"{len(wanted) - len(missing)}/{len(wanted)}", not missing)]
    ref_zip = workdir / "reference.zip"
    with zipfile.ZipFile(ref_zip, "w") as zf:
        for module in assignment.modules:
            zf.write(solutions.reference_path(module), f"{module}.py")
    out = workdir / "otter-run"
    out.mkdir()
    proc = subprocess.run([sys.executable, "-m", "otter", "run", "-a", str(zip_path), "-o", str(out), str(ref_zip)],
                          capture_output=True, text=True, timeout=1800)
    results = out / "results.json"
    score = json.loads(results.read_text())["score"] if results.is_file() else None
    shown = "no results.json" if score is None else f"{score:g}/{assignment.total_points:g}"
    rows.append(Row("zip:otter run reference", "full marks", shown, proc.returncode == 0 and score is not None and abs(score - assignment.total_points) < 1e-9))
    return rows


def render(title: str, rows: list[Row]) -> str:
    """A fixed-width table: variant, expectation, score, OK/MISS."""
    header = ("variant", "expectation", "score", "")
    lines = [(r.variant, r.expectation, r.score, "OK" if r.ok else "MISS") for r in rows]
    widths = [max(len(x[i]) for x in [header, *lines]) for i in range(4)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    body = [fmt.format(*header).rstrip(), "  ".join("-" * w for w in widths)] + [fmt.format(*line).rstrip() for line in lines]
    return "\n".join([title, *body])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-p", "--problem", action="append", metavar="MODULE", help="validate only this problem (repeatable)")
    parser.add_argument("--with-zip", action="store_true", help="also build the Gradescope zip in a temp folder and `otter run` the reference (slow)")


def run(args: argparse.Namespace) -> int:
    assignment = manifest.load()
    modules = known_problems(assignment, args.problem)
    if modules is None:
        return 2
    return validate(assignment, modules or None, with_zip=args.with_zip)


def validate(assignment: Assignment, modules: list[str] | None = None, with_zip: bool = False) -> int:
    """Validate, print one table per problem; return 0 when nothing is missed, else 1."""
    problems = [p for p in assignment.problems if modules is None or p.module in modules]
    misses = 0
    workdir = Path(tempfile.mkdtemp(prefix="autograder-validate-"))
    try:
        for problem in problems:
            rows = variant_rows(problem)
            isolation = isolation_row(problem, assignment, workdir)
            rows += [isolation] if isolation else []
            rows.append(template_row(problem))
            misses += sum(not r.ok for r in rows)
            print(render(f"\n{problem.module} — {problem.title}", rows), flush=True)
        if with_zip:
            rows = zip_rows(assignment, workdir)
            misses += sum(not r.ok for r in rows)
            print(render("\nGradescope zip", rows), flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\n{'all as expected' if not misses else f'{misses} MISS(es)'}")
    return 1 if misses else 0
