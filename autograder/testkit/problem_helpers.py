"""Helpers that one problem's public and hidden tests share, kept in that problem's folder.

The runner executes a test file by its path, not as a module of a package, and every problem's helpers are named
``support.py``, so a plain ``import support`` would give every problem the first one loaded:
``problem_support("shift_matrix")`` loads ``assignments/shift_matrix/tests/support.py`` by its path instead, from the
assignments folder that the repository, the Gradescope zip and the handout all hold.
"""

from __future__ import annotations

import functools
import importlib.util
import types
from pathlib import Path

from ..model import paths

SUPPORT_FILE = "support.py"


def support_path(module: str) -> Path:
    """``assignments/<module>/tests/support.py``."""
    return paths.ASSIGNMENTS / module / "tests" / SUPPORT_FILE


def problem_support(module: str) -> types.ModuleType:
    """The support module of ``module``'s tests (loaded once per process)."""
    path = support_path(module)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: the tests of {module} share their helpers through it")
    return _load(str(path), module)


@functools.cache
def _load(path: str, module: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(f"support_{module}", path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded
