"""The ``@test_case`` decorator: what the runner (``grading.runner``) reads of each test function."""

from __future__ import annotations

from collections.abc import Callable


class TestCase:
    """A test function with its points, whether it is hidden, and its name in reports (the function's, without
    ``test_``, unless ``name=`` says otherwise)."""

    __test__ = False  # not a pytest test

    def __init__(self, name: str | None = None, points: float | None = None, hidden: bool = False) -> None:
        self.name, self.points, self.hidden = name, points, hidden
        self.test_func: Callable[..., None] = lambda: None

    def __call__(self, test_func: Callable[..., None]) -> TestCase:
        self.test_func = test_func
        return self


def test_case(name: str | None = None, points: float | None = None, hidden: bool = False) -> TestCase:
    """``@test_case(points=2)`` above a test function; a hidden test also passes ``hidden`` as true."""
    return TestCase(name, points, hidden)


test_case.__test__ = False  # not a pytest test
