"""Where the harness finds its inputs (one root, resolved from the package's location), and how it copies itself."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from .. import settings

PACKAGE_DIR = Path(__file__).resolve().parents[1]
ROOT = Path(settings.AUTOGRADER_ROOT.value() or PACKAGE_DIR.parent).resolve()
ASSIGNMENTS = ROOT / "assignments"
REFERENCE = ROOT / "reference"
TEMPLATES = ROOT / "student_template"
ASSIGNMENT_MANIFEST = ASSIGNMENTS / "assignment.yaml"

BYTECODE = ("__pycache__", "*.pyc", ".pytest_cache")

# The commands students get: of ``commands/``, the students' handout and the Gradescope zip ship these and the helpers
# beside them; every other command is staff's and stays behind, so a new command is left out until it is listed here.
STUDENT_COMMANDS = ("check", "submit")
COMMAND_HELPERS = ("__init__", "common")


def staff_commands() -> tuple[str, ...]:
    """The modules of ``commands/`` only staff use (dotted, for ``package_without``): every one but the students'."""
    shipped = {*STUDENT_COMMANDS, *COMMAND_HELPERS}
    return tuple(f"commands.{p.stem}" for p in sorted((PACKAGE_DIR / "commands").glob("*.py")) if p.stem not in shipped)


def package_without(*left_out_names: str) -> Callable[[str, list[str]], set[str]]:
    """An ``ignore`` for copying the package with ``shutil.copytree``, leaving out sub-packages and modules (dotted:
    ``"staff"``, ``"commands.grade"``) and bytecode."""
    left_out = {PACKAGE_DIR.joinpath(*p.split(".")) for p in left_out_names}
    left_out |= {p.with_name(f"{p.name}.py") for p in left_out}
    bytecode = shutil.ignore_patterns(*BYTECODE)

    def ignore(folder: str, names: list[str]) -> set[str]:
        return set(bytecode(folder, names)) | {n for n in names if Path(folder, n).resolve() in left_out}

    return ignore
