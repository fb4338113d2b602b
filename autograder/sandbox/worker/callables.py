"""Build what a test names (``Named("...")``) on the side that calls the function: the worker for the student's call,
the recording process for the reference's.

The sandbox knows no problem: a function comes with its problem's ``callables.py`` source, which the grader attaches to
the marker (a test passes, say, a feature map of ``assignments/<module>/callables.py``). Torch dtypes cannot cross the
wire as data, so ``"torch.float32"`` and ``"torch.float64"`` are built here for any problem.
"""

from __future__ import annotations

from typing import Any

_LOADED: dict[str, dict[str, Any]] = {}  # source -> its namespace, once per process


def _dtypes() -> dict[str, Any]:
    import torch

    return {"torch.float32": torch.float32, "torch.float64": torch.float64}


def build(name: str, source: str | None = None) -> Any:
    """The dtype called ``name``, or the function ``name`` defined at the top level of ``source``."""
    dtypes = _dtypes()
    if name in dtypes:
        return dtypes[name]
    if source is None:
        raise ValueError(f"unknown named value {name!r}: a test's Named() function must be defined in its problem's "
                         "callables.py")
    namespace = _LOADED.get(source)
    if namespace is None:
        namespace = {"__name__": "problem_callables"}
        # the grader's own file, never the student's
        exec(compile(source, "callables.py", "exec"), namespace)  # noqa: S102
        _LOADED[source] = namespace
    found = namespace.get(name)
    if not callable(found) or name.startswith("_"):
        raise ValueError(
            f"unknown named function {name!r}: the problem's callables.py defines no public function of that name"
        )
    return found
