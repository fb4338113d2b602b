"""``submit``: the check, what still fails or is not implemented, and a zip of exactly the assignment's modules.

The zip holds the module files the check read (found as ``grading.submission`` finds them, at any depth of a folder
or a zip), each at the top level under its own name, so what is uploaded is what was checked.
"""

from __future__ import annotations

import ast
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..model.manifest import Assignment
from ..model.scores import GRADED, GradeReport
from . import check, submission


@dataclass
class Handin:
    """What ``submit`` did: the zip written (or why not), the check's report, and what is left to do, per module."""

    out: Path | None
    report: GradeReport | None
    missing: list[str] = field(default_factory=list)  # modules not in the zip (not found, found twice, unreadable)
    unimplemented: dict[str, list[str]] = field(
        default_factory=dict
    )  # module -> functions that still raise NotImplementedError
    failing: dict[str, list[str]] = field(default_factory=dict)  # module -> public tests that fail
    broken: dict[str, str] = field(default_factory=dict)  # module in the zip but not graded (import failed, ...) -> why
    error: str = ""

    @property
    def ready(self) -> bool:
        """Every module in the zip, implemented, graded, and passing its public tests."""
        return self.out is not None and not (self.missing or self.unimplemented or self.failing or self.broken)

    def costly(self) -> list[str]:
        """The modules that will cost points as they are, in the assignment's order of finding them."""
        named = [*self.missing, *self.unimplemented, *self.failing, *self.broken]
        return list(dict.fromkeys(named))


def unimplemented(source: bytes) -> list[str]:
    """The functions of a module whose body still raises ``NotImplementedError`` (the stub's TODO)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            for inner in ast.walk(node):
                exc = getattr(inner, "exc", None) if isinstance(inner, ast.Raise) else None
                target = exc.func if isinstance(exc, ast.Call) else exc
                if isinstance(target, ast.Name) and target.id == "NotImplementedError":
                    found.append(node.name)
                    break
    return found


def write_zip(sources: dict[str, bytes], target: Path) -> Path:
    """A zip of ``sources`` (module -> source), each as ``<module>.py`` at the top level; written whole or not at
    all."""
    target = Path(target).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
            for module, source in sources.items():
                zf.writestr(f"{module}.py", source)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)  # a half-written zip is never left to upload by mistake
    return target


# WorkerSession(s) or None
def submit(path: Path, out: Path, assignment: Assignment, session=None) -> Handin:  # noqa: ANN001
    """Check the modules at ``path`` (a folder or a zip), then write ``out`` with exactly the modules found."""
    path, out = Path(path), Path(out)
    try:
        located = submission.locate(path, assignment.modules)
    except submission.SubmissionError as exc:
        return Handin(None, None, list(assignment.modules), error=str(exc))
    if path.exists() and out.resolve() == path.resolve():
        return Handin(None, None, error=f"{out} is the submission being checked; choose another --out")
    report = check.run(path, assignment, session=session)
    handin = Handin(None, report, [m for m in assignment.modules if m not in located.sources])
    for module, source in located.sources.items():
        todo = unimplemented(source)
        if todo:
            handin.unimplemented[module] = todo
    for problem in report.problems:
        failed = [t.name for t in problem.tests if not t.passed]
        if problem.module in handin.unimplemented or problem.module in handin.missing:
            continue
        if problem.kind != GRADED:
            handin.broken[problem.module] = problem.status
        elif failed:
            handin.failing[problem.module] = failed
    if located.sources:
        try:
            handin.out = write_zip(located.sources, out)
        except OSError as exc:
            blocked = Path(exc.filename) if exc.filename else None
            where = f" ({blocked})" if blocked is not None and blocked in out.resolve().parents else ""
            handin.error = (
                f"could not write {out}: {exc.strerror or exc}{where}; pass --out with a path in a folder you "
                "can write (for example --out ~/submission.zip)"
            )
    else:
        handin.error = "none of the assignment's module files was found, so no zip was written"
    return handin


def describe(handin: Handin, assignment: Assignment) -> list[str]:
    """What a student reads after ``submit``: what is left to do, then what to upload."""
    if handin.report is None and handin.out is None:
        return [f"error: {handin.error}"]
    lines = []
    problems = {p.module: p for p in handin.report.problems} if handin.report else {}
    for module in assignment.modules:
        problem = problems.get(module)
        if module in handin.missing:
            why = problem.status if problem is not None else "not found"
            lines.append(f"  MISSING  {module}.py: {why}")
        elif module in handin.unimplemented:
            lines.append(f"  TODO     {module}.py: not implemented yet: {', '.join(handin.unimplemented[module])}")
        elif module in handin.failing:
            failed = handin.failing[module]
            lines.append(f"  FAIL     {module}.py: {len(failed)} public test(s) fail: {', '.join(failed[:5])}"
                         + (" ..." if len(failed) > 5 else ""))
        elif module in handin.broken:
            lines.append(f"  FAIL     {module}.py: {handin.broken[module]}")
        else:
            lines.append(f"  ok       {module}.py: every public test passes")
    if handin.out is None:
        return lines + [f"error: {handin.error}"]
    where = f"{handin.out}"
    if handin.ready:
        lines.append(
            f"Wrote {where} with all {len(assignment.modules)} modules. Upload it to Gradescope (the hidden tests run "
            "there)."
        )
    else:
        costly = ", ".join(f"{m}.py" for m in handin.costly())
        lines.append(
            f"Wrote {where} with {len(assignment.modules) - len(handin.missing)} of the {len(assignment.modules)} "
            "modules; "
            f"{costly} will cost points as listed above. Fix it and run submit again, or upload this zip to Gradescope "
            "as it is (you may resubmit until the deadline)."
        )
    return lines
