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


def package_without(*packages: str) -> Callable[[str, list[str]], set[str]]:
    """An ``ignore`` for copying the package with ``shutil.copytree``, leaving out whole sub-packages (dotted, e.g.
    ``"commands.staff"``) and bytecode: what ships is chosen by package, never by file name."""
    left_out = {PACKAGE_DIR.joinpath(*p.split(".")) for p in packages}
    bytecode = shutil.ignore_patterns(*BYTECODE)

    def ignore(folder: str, names: list[str]) -> set[str]:
        return set(bytecode(folder, names)) | {n for n in names if Path(folder, n).resolve() in left_out}

    return ignore
