"""What one call cost, counted where it ran: torch's work, random numbers drawn, CPU time, under an optional memory cap.

A test proves a property of cost (linear in N, fresh draws in every trial) by comparing these counts at two sizes of
one call, which takes far less work than running a call large enough for a time or memory limit to tell. Knows no
problem: it counts every aten operation the call dispatches (``TorchDispatchMode``), and the process's own CPU time
for work done outside torch (numpy, Python loops).

Everything here runs inside the student's process, where the student's code can undo it (pop the dispatch mode, raise
the soft limit, replace ``time.process_time``): a count may explain a verdict, never pass one. In the sandbox the
grader replaces ``cpu_seconds`` with the CPU time of everything the call ran, read in /proc, and ``memory_capped`` with
whether the worker's first process set a hard limit on the call's processes (``sandbox.session``); the figures
measured here serve the portable self-check, where the student's own machine is all there is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

# Distinct random values are counted among at most this many drawn elements (the rest are only counted).
MAX_KEPT_RANDOM = 1 << 22
# Operations whose first argument is read only where the output says (gathers): their work is their output.
_GATHERS = ("index", "index_select", "gather", "take", "embedding", "masked_select", "take_along_dim")
_MATMULS = ("mm", "bmm", "addmm", "baddbmm", "addbmm")


_METER: list[Any] = []


def _meter_mode() -> Any:
    if not _METER:
        _METER.append(_meter_class())
    return _METER[0]()


def _meter_class() -> type:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    seeded = torch.Tag.nondeterministic_seeded

    def numel(t: Any) -> int:
        return torch.Tensor.numel(t) if isinstance(t, torch.Tensor) else 0

    class Meter(TorchDispatchMode):
        """Counts the elements every aten operation writes or reduces, the multiply-accumulates of matrix products, and
        the random elements drawn (keeping up to ``MAX_KEPT_RANDOM`` of them to count distinct values)."""

        @classmethod
        def _should_skip_dynamo(cls) -> bool:
            return False  # else defining the class imports torch._dynamo (2 s) to wrap a method nothing here compiles

        def __init__(self) -> None:
            super().__init__()
            self.work = self.random = self.largest = self.kept_count = 0
            self.kept: list[Any] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
            kwargs = kwargs or {}
            result = func(*args, **kwargs)
            schema = func._schema
            if any(a.alias_info is not None and not a.alias_info.is_write for a in schema.returns):
                return result  # a view: nothing is computed
            outs = tree_leaves(result)
            written = sum(numel(t) for t in outs)
            name = func.__name__.split(".")[0].rstrip("_")
            if name in _GATHERS:
                read = sum(numel(t) for t in tree_leaves((args[1:], kwargs)))
            else:  # a reduction or an elementwise operation reads every element of its inputs
                read = sum(numel(t) for t in tree_leaves((args, kwargs)))
            work = written + read
            if name in _MATMULS and len(args) >= 2:
                a, b = args[-2], args[-1]
                if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.dim() >= 2:
                    work += numel(a) * b.shape[-1]  # (batch x) m x k times k x n: batch * m * k * n
            self.work += work
            self.largest = max([self.largest] + [numel(t) for t in outs])
            if seeded in func.tags:
                for t in outs:
                    if isinstance(t, torch.Tensor) and t.is_floating_point():
                        self.random += numel(t)
                        if self.kept_count < MAX_KEPT_RANDOM:
                            with torch._C.DisableTorchFunction():
                                flat = (
                                    t.detach()
                                    .reshape(-1)[: MAX_KEPT_RANDOM - self.kept_count]
                                    .to(torch.float64)
                                    .clone()
                                )
                            self.kept.append(flat)
                            self.kept_count += torch.Tensor.numel(flat)
            return result

        def distinct(self) -> int:
            if not self.kept:
                return 0
            return int(torch.unique(torch.cat(self.kept)).numel())

    return Meter


def _vm_size_bytes() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) << 10
    except (OSError, ValueError):
        pass
    return None


class _MemoryCap:
    """Lower the soft address-space limit to what the process holds now plus ``mb`` for the call, then put it back.

    Only the soft limit moves (the hard one, the sandbox's, stays), so this needs no privilege; where the platform has
    no ``resource`` or no /proc the call runs uncapped and the report says so."""

    def __init__(self, mb: int | None) -> None:
        self.mb, self.saved, self.applied = mb, None, False

    def __enter__(self) -> _MemoryCap:
        if not self.mb:
            return self
        try:
            import resource
        except ImportError:
            return self
        now = _vm_size_bytes()
        if now is None:
            return self
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = now + (self.mb << 20)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        self.saved, self.applied = (soft, hard), True
        return self

    def __exit__(self, *exc: object) -> None:
        if self.saved is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, self.saved)


def metered(func: Callable[..., Any], args: tuple, kwargs: dict, options: dict) -> tuple[Any, dict]:
    """Run ``func(*args, **kwargs)``; return (its value, what it cost). ``options``: ``work`` (count torch's operations:
    slower calls) and ``memory_mb`` (cap the address space the call may add). Exceptions propagate."""
    memory_mb = options.get("memory_mb")
    memory_mb = int(memory_mb) if isinstance(memory_mb, int) and memory_mb > 0 else None
    mode = _meter_mode() if options.get("work") else None
    report: dict[str, Any] = {}
    with _MemoryCap(memory_mb) as cap:
        start = time.process_time()
        if mode is None:
            value = func(*args, **kwargs)
        else:
            with mode:
                value = func(*args, **kwargs)
        report["cpu_seconds"] = time.process_time() - start
    if memory_mb:
        report["memory_capped"] = cap.applied
    if mode is not None:
        report |= {"work": mode.work, "largest_tensor": mode.largest, "random_elements": mode.random,
                   "random_distinct": mode.distinct(), "random_kept": mode.kept_count}
    return value, report


REPORT_FIELDS = (
    "cpu_seconds",
    "work",
    "largest_tensor",
    "random_elements",
    "random_distinct",
    "random_kept",
    "memory_capped",
)


def read_report(report: Any) -> dict[str, Any]:
    """A cost report as it came back over the wire, checked (the grader's side): known fields, finite non-negative
    numbers."""
    if not isinstance(report, dict):
        raise ValueError("a metered call came back without its cost")
    checked: dict[str, Any] = {}
    for key, value in report.items():
        if key not in REPORT_FIELDS:
            raise ValueError(f"an unknown cost field {key!r}")
        if key == "memory_capped":
            if not isinstance(value, bool):
                raise ValueError("memory_capped is not a bool")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0 or value == float("inf"):
            raise ValueError(f"cost field {key} is not a finite non-negative number")
        checked[key] = value
    return checked
