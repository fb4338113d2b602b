"""Where the harness finds its inputs: one root, resolved from this package's location."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("AUTOGRADER_ROOT", PACKAGE_DIR.parent)).resolve()
ASSIGNMENTS = ROOT / "assignments"
REFERENCE = ROOT / "reference"
TEMPLATES = ROOT / "student_template"
ASSIGNMENT_MANIFEST = ASSIGNMENTS / "assignment.yaml"
