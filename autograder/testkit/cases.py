"""The ``test_case`` decorator of otter-grader's exception-based test files.

Inside otter (``otter run``, ``otter check``), ``test_case`` is otter's own class, so otter reads the
files natively; in our runner, which never imports otter (it is slow to import), it is a small stand-in
with the same fields.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


class LocalTestCase:
    """Our stand-in for ``otter.test_files.test_case``: same fields, no otter import."""

    def __init__(self, name: str | None = None, points: float | None = None, hidden: bool = False,
                 success_message: str | None = None, failure_message: str | None = None) -> None:
        self.name, self.points, self.hidden = name, points, hidden
        self.success_message, self.failure_message = success_message, failure_message
        self.test_func: Callable[..., None] = lambda: None

    def __call__(self, test_func: Callable[..., None]) -> LocalTestCase:
        self.test_func = test_func
        return self


def test_case(**fields: Any) -> Any:
    """Otter's decorator when otter is already loaded (we are inside otter), else ours."""
    otter_files = sys.modules.get("otter.test_files")
    cls = getattr(otter_files, "test_case", None) or LocalTestCase
    return cls(**fields)


test_case.__test__ = False  # not a pytest test
LocalTestCase.__test__ = False
