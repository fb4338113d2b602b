"""What student code may import: the standard library and the packages of the grading environment marked for it.

Derived from the one file the Gradescope image installs, ``requirements.txt``: a line ending in ``MARK`` is a package
student code may import (numpy, torch); the harness's own packages (PyYAML, the sandbox layers) are not marked. The
handout ships the students' requirements with the same marks (``staff.handout``), so the self-check refuses what
grading refuses, with the same words (``sandbox.worker.imports``).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

MARK = "# student code may import it"
REQUIREMENTS = Path(__file__).resolve().parents[2] / "requirements.txt"
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def marked(lines: list[str]) -> tuple[str, ...]:
    """The import names of the requirement lines that carry ``MARK`` (``numpy==2.4.6  # student code may import
    it``)."""
    names = []
    for line in lines:
        match = _NAME.match(line)
        if match and line.rstrip().endswith(MARK):
            names.append(match.group(1).lower().replace("-", "_"))
    return tuple(dict.fromkeys(names))


@functools.cache
def student_libraries(requirements: Path = REQUIREMENTS) -> tuple[str, ...]:
    """The packages student code may import besides the standard library (``("numpy", "torch")``)."""
    try:
        return marked(requirements.read_text(encoding="utf-8").splitlines())
    except OSError:
        return ()
