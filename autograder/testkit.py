"""Everything a test file imports: the ``test_case`` decorator, ``Call`` and the checks.

Test files are otter-grader exception-based test files. Inside otter (``otter run``,
``otter check``), ``test_case`` is otter's own class, so otter reads the files natively;
in our runner, which never imports otter (it is slow to import), it is a small stand-in
with the same fields.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .background import Background
from .calls import Call, known_mistake, reference_value
from .checks import FLOAT32, FLOAT64, CheckFailure, Tolerance, describe, difference, expect_between, expect_equal, expect_true, fail
from .inputs import rand, randint, randn, tensor
from .macs import measured_macs
from .problem_support import problem_support
from .sandbox.client import StudentCallError
from .sandbox.wire import Named, Seeded

__all__ = [
    "Background", "Call", "CheckFailure", "FLOAT32", "FLOAT64", "Named", "Seeded", "StudentCallError", "Tolerance",
    "describe", "difference", "expect_between", "expect_equal", "expect_raises", "expect_true", "fail", "known_mistake", "measured_macs", "problem_support", "rand", "randint", "randn", "reference_value", "tensor",
    "test_case",
]


def expect_raises(call: Call, exception: str) -> None:
    """Fail unless the student's function raised ``exception`` (by name) on this call."""
    try:
        got = call.result()
    except StudentCallError as exc:
        first = str(exc).splitlines()[0]
        if exc.kind == "raised" and f" raised {exception}:" in first:
            return
        fail(f"Called: {call.shown}\nExpected: {exception}\nGot: {first}")
    fail(f"Called: {call.shown}\nExpected: {exception}\nGot: it returned {describe(got)} instead of raising")


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
