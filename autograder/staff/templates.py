"""Generate the student stubs from the reference: solution blocks become ``NotImplementedError``."""

from __future__ import annotations

import re
from pathlib import Path

from ..model import paths

BEGIN = "# BEGIN SOLUTION"
END = "# END SOLUTION"
HEADER = "# Student stub generated from the reference by `make templates`. Replace each TODO with your code.\n"
_DEF = re.compile(r"^\s*def\s+(\w+)\s*\(")


class TemplateError(Exception):
    """Unbalanced or misplaced solution markers."""


def stub_source(source: str, filename: str = "<reference>") -> str:
    """The reference source with every solution block replaced by a ``raise NotImplementedError``; a reference or a
    stub that Python cannot compile is refused (``TemplateError``), never written."""
    out: list[str] = [HEADER]
    inside = False
    current_function = "this function"
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        stripped = line.strip()
        match = _DEF.match(line)
        if match and not inside:
            current_function = match.group(1) + "()"
        if stripped == BEGIN:
            if inside:
                raise TemplateError(f"{filename}:{number}: {BEGIN} inside another solution block")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f'{indent}raise NotImplementedError("TODO: implement {current_function}")\n')
            continue
        if stripped == END:
            if not inside:
                raise TemplateError(f"{filename}:{number}: {END} without a {BEGIN}")
            inside = False
            continue
        if not inside:
            out.append(line)
    if inside:
        raise TemplateError(f"{filename}: {BEGIN} is never closed")
    _compiles(source, filename, "the reference")
    stub = "".join(out)
    _compiles(stub, filename, f"its stub (what is left once the {BEGIN} blocks are cut)")
    return stub


def _compiles(source: str, filename: str, what: str) -> None:
    try:
        compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise TemplateError(f"{filename}:{exc.lineno}: {what} does not compile: {exc.msg}") from None


def solution_lines(source: str) -> list[str]:
    """The non-blank, non-comment lines inside solution blocks (to check stubs never leak them)."""
    lines, inside = [], False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped in (BEGIN, END):
            inside = stripped == BEGIN
            continue
        if inside and stripped and not stripped.startswith("#"):
            lines.append(stripped)
    return lines


def generate(modules: list[str], reference_dir: Path | None = None, out_dir: Path | None = None) -> list[Path]:
    """Write ``student_template/<module>.py`` for each module; return the paths written. Every stub is made before
    any is written: a reference that cannot give one (``TemplateError``) leaves every template as it was."""
    reference_dir = reference_dir or paths.REFERENCE
    out_dir = out_dir or paths.TEMPLATES
    stubs = {}
    for module in modules:
        src = reference_dir / f"{module}.py"
        try:
            source = src.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise TemplateError(f"{src} cannot be read ({exc}); every problem needs its reference there") from None
        stubs[out_dir / f"{module}.py"] = stub_source(source, str(src))
    out_dir.mkdir(parents=True, exist_ok=True)
    for target, stub in stubs.items():
        target.write_text(stub, encoding="utf-8")
    return list(stubs)
