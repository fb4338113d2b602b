"""A test's ``Named("...")`` functions come from its problem's folder: attach ``callables.py``'s source before a call
crosses, so the worker (which knows no problem) builds them beside the student's module."""

from __future__ import annotations

from typing import Any

from ..model.manifest import callables_source
from ..sandbox.worker.wire import Named


def attach(module: str, value: Any) -> Any:
    """``value`` with every ``Named`` in it (in lists, tuples and dicts too) carrying ``module``'s callables source."""
    if isinstance(value, Named):
        return (
            value
            if value.source is not None or value.name.startswith("torch.")
            else Named(value.name, callables_source(module))
        )
    if isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        return type(value)(attach(module, v) for v in value)
    if type(value) is dict:
        return {k: attach(module, v) for k, v in value.items()}
    return value


def with_callables(module: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """A call's arguments as the worker must receive them."""
    if callables_source(module) is None:
        return args, kwargs
    return attach(module, tuple(args)), attach(module, dict(kwargs))
