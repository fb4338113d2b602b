"""Untrusted code, run apart: sessions of worker processes, the layers that confine them, and the wire they speak.

The sandbox knows no problem, test or score. Code outside it uses only its public face (an import-linter contract in
``pyproject.toml`` keeps it so): the names below, taken from this package (``from ..sandbox import WorkerSession``),
and six public modules: ``errors`` (what went wrong, as kinds), ``policy`` (what this machine allows and the
protections it applies), ``boundary`` (text a submission sent, made inert), ``environment`` (the libraries student
code may import), ``cgroupfs`` (where this process's cgroups are, and the memory limit they put on it) and
``worker.wire`` (the format both sides speak, with its markers). Every other module is internal.

Each name is imported when first used, so importing ``errors`` (as the command line does at its start) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

# A public name -> (the module that defines it, its name there).
PUBLIC = {
    # sessions: a worker (or the portable path's child Python) serving a submission's modules
    "WorkerSession": ("session", "WorkerSession"),
    "HARNESS_ROOT": ("session", "HARNESS_ROOT"),
    "PortableSession": ("portable", "PortableSession"),
    "describe_portable": ("portable", "describe"),
    # what one call cost, as the time rules read it
    "Exchange": ("exchange", "Exchange"),
    # the grader's half of the wire: a call's inputs as plain numpy data, and the markers it rebuilds
    "encode_call": ("codec", "encode_call"),
    "to_array": ("codec", "to_array"),
    "GRADER_MAKE": ("codec", "GRADER_MAKE"),
    # the boxes graders left behind when they were killed
    "remove_dead_boxes": ("runtime", "remove_dead_boxes"),
    # the worker's own serving, for the trusted recording of the reference (same inputs, same costs)
    "argument_makers": ("worker.serving", "argument_makers"),
    "encode_result": ("worker.serving", "encode_result"),
    "builtin_classes": ("worker.serving", "builtin_classes"),
    "metered": ("worker.metering", "metered"),
    # reading /proc (the processes a run left behind)
    "procfs": ("worker.procfs", None),
}

__all__ = sorted(PUBLIC)


def __getattr__(name: str) -> Any:  # noqa: ANN401 - a class, a function, a constant or a module
    """The public ``name``, imported from its module on first use."""
    if name not in PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = PUBLIC[name]
    found = importlib.import_module(f"{__name__}.{module}")
    return found if attribute is None else getattr(found, attribute)
