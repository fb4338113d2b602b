"""Record expected values: run every test against the reference, in this trusted process, with torch.

The tests run as they do when grading, but each "student" call runs the reference here, each
expected value (``Call.reference``, ``reference_value``) is computed and kept, and so is the output
of every known mistake on each call's inputs (for hints). The result is one ``expected.store.Store`` per
problem. ``build`` and ``handout`` call this; a staff checkout's cache is refreshed by running this
module (``python -m autograder.staff.recording --cache MODULE...``), so grading processes never import torch.
"""

from __future__ import annotations

import argparse
import contextvars
import inspect
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ..expected import records
from ..expected.store import Entry, Store, decode, encode_inputs, exact_key
from ..model import manifest
from ..model.manifest import Problem, callables_source
from ..sandbox import argument_makers, builtin_classes, encode_result, metered
from ..sandbox.errors import StudentCallError
from ..sandbox.worker import wire
from ..settings import HINT_MAX_ELEMENTS
from ..testkit import calls
from . import solutions

# Whether the call being recorded belongs to a public test file (the handout carries only those).
PUBLIC: contextvars.ContextVar[bool] = contextvars.ContextVar("recording_public", default=False)


class RecordingError(Exception):
    """The reference fails a test, or a test cannot be recorded."""


def _as_sent(value: Any) -> tuple[Any, list[np.ndarray]]:
    """A returned value encoded as the worker sends it."""
    return encode_result(value)


def _size(value: tuple[Any, list[np.ndarray]]) -> int:
    return sum(int(a.size) for a in value[1])


def _same_bits(a: tuple[Any, list[np.ndarray]], b: tuple[Any, list[np.ndarray]]) -> bool:
    return a[0] == b[0] and len(a[1]) == len(b[1]) and all(
        x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes() for x, y in zip(a[1], b[1]))


def _run(impl: Any, args: tuple, kwargs: dict, callables: str | None = None) -> tuple[Any, list[np.ndarray]]:
    """Run a trusted implementation on the inputs as the worker would receive them; its output as the worker sends
    it."""
    tree, arrays = encode_inputs(args, kwargs)
    call_args, call_kwargs = wire.decode(tree, [a.copy() for a in arrays], argument_makers(callables))
    return _as_sent(impl(*call_args, **call_kwargs))


class Recorder:
    """Computes and keeps the expected values of one problem while its tests run."""

    def __init__(self, module: str) -> None:
        import torch

        torch.set_num_threads(1)  # the same reduction order as in the worker
        self.module = module
        self.callables = callables_source(module)  # what the problem's tests may name (Named("..."))
        self.reference = solutions.reference(module)
        self.mistakes = solutions.mistakes(module)
        self.store = Store(module, hints={v.name: v.hint for v in self.mistakes}, signatures=self._signatures())
        self._lock = threading.Lock()
        self._outputs: dict[str, tuple[Any, list[np.ndarray]]] = {}

    def _signatures(self) -> dict[str, list[list]]:
        found = {}
        for name, fn in vars(self.reference).items():
            if inspect.isfunction(fn) and not name.startswith("_") and fn.__module__ == self.reference.__name__:
                found[name] = [[p.name, p.kind.name, p.default is not inspect.Parameter.empty]
                               for p in inspect.signature(fn).parameters.values()]
        return found

    def _entry(self, func: str, args: tuple, kwargs: dict) -> tuple[str, Entry]:
        tree, arrays = encode_inputs(args, kwargs)
        key = exact_key(func, tree, arrays)
        with self._lock:
            entry = self.store.entries.get(key)
            if entry is None:
                entry = self.store.entries[key] = Entry(func, (tree, [a.copy() for a in arrays]), PUBLIC.get())
            entry.public = entry.public or PUBLIC.get()
        return key, entry

    def _output(self, key: str, func: str, args: tuple, kwargs: dict) -> tuple[Any, list[np.ndarray]]:
        if key not in self._outputs:
            self._outputs[key] = _run(getattr(self.reference, func), args, kwargs, self.callables)
        return self._outputs[key]

    def expected(self, func: str, args: tuple, kwargs: dict) -> Any:
        """The reference's output, kept in the store."""
        key, entry = self._entry(func, args, kwargs)
        entry.output = self._output(key, func, args, kwargs)
        return decode(entry.output)

    def student(self, func: str, args: tuple, kwargs: dict, hints: bool = True) -> Any:
        """The reference standing in for the student; with ``hints``, the known mistakes' outputs on these inputs are
        kept for hints."""
        key, entry = self._entry(func, args, kwargs)
        output = self._output(key, func, args, kwargs)
        if hints and _size(entry.inputs) <= HINT_MAX_ELEMENTS and not entry.mistakes:
            for variant in self.mistakes:
                impl = getattr(variant.load(), func, None)
                if impl is None or impl is getattr(self.reference, func):
                    continue
                try:
                    out = _run(impl, args, kwargs, self.callables)
                except Exception:  # noqa: BLE001 - a mistake that cannot run here gives no hint
                    continue
                if _size(out) <= HINT_MAX_ELEMENTS and not _same_bits(out, output):
                    entry.mistakes[variant.name] = out
        return decode(output)


class TrustedFunction:
    """The reference's ``module.func`` standing in for the student's (same fields as ``proxy.StudentFunction``)."""

    def __init__(self, recorder: Recorder, func: str) -> None:
        self.recorder, self.module, self.func = recorder, recorder.module, func

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._answer(args, kwargs, hints=True)

    def _answer(self, args: tuple, kwargs: dict, hints: bool) -> Any:
        try:
            return self.recorder.student(self.func, args, kwargs, hints)
        except Exception as exc:  # noqa: BLE001 - reported as the worker reports a student's exception
            shown = calls.describe_call(self.module, self.func, args, kwargs)
            raise StudentCallError(
                f"{shown} raised {type(exc).__name__}: {exc}", "raised", type(exc).__name__,
                raised_as=tuple(builtin_classes(exc)),
            ) from None

    def metered(self, args: tuple, kwargs: dict, meter: dict, fresh: bool = False) -> tuple[Any, dict]:
        """The reference's value and what it cost here, counted as the worker counts (never under a memory cap: this
        process is the grader's; the sandbox checks the reference under the cap when ``validate`` grades it; nothing
        to start afresh, ``fresh`` is for the sandbox).

        No known mistake runs on a metered call's inputs: what the call costs is the point, and a check that compares
        its value gives no hints (the mistakes' outputs at 256 and 1024 tokens in problems 5 and 6 were 18 MB of the
        zip)."""
        value = self._answer(args, kwargs, hints=False)
        tree, arrays = encode_inputs(args, kwargs)
        call_args, call_kwargs = wire.decode(tree, [a.copy() for a in arrays], argument_makers())
        options = {k: v for k, v in meter.items() if k != "memory_mb"}
        _, cost = metered(getattr(self.recorder.reference, self.func), call_args, call_kwargs, options)
        return value, cost


class TrustedModule:
    """Attribute access gives the reference's functions, recorded."""

    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder

    def __getattr__(self, func: str) -> TrustedFunction:
        if func.startswith("__"):
            raise AttributeError(func)
        return TrustedFunction(self._recorder, func)


def record_problem(problem: Problem, include_hidden: bool = True) -> Store:
    """Run ``problem``'s tests on the reference here and return what they expect."""
    from ..grading.runner import load_test_file, run_test

    recorder = Recorder(problem.module)
    token = calls.RECORDER.set(recorder)
    try:
        env = {problem.module: TrustedModule(recorder)}
        failed = []
        for path, hidden in problem.test_files(include_hidden):
            public = PUBLIC.set(not hidden)
            try:
                for spec in load_test_file(path, hidden):
                    result = run_test(spec, env, problem.module)
                    if not result.passed:
                        failed.append(f"{problem.module}: {spec.name}: {result.message}")
            finally:
                PUBLIC.reset(public)
    finally:
        calls.RECORDER.reset(token)
    if failed:
        raise RecordingError(
            "the reference fails its own tests, so no expected values are recorded:\n" + "\n".join(failed)
        )
    return recorder.store


def record(modules: list[str] | None = None, include_hidden: bool = True) -> dict[str, Store]:
    """The stores of ``modules`` (default: every problem)."""
    assignment = manifest.load()
    return {
        p.module: record_problem(p, include_hidden)
        for p in assignment.problems
        if modules is None or p.module in modules
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autograder.staff.recording", description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*")
    parser.add_argument(
        "--cache", action="store_true", help="write the staff checkout's cache (with each problem's fingerprint)"
    )
    parser.add_argument("--out", type=Path, help="write the stores into this folder")
    args = parser.parse_args(argv)
    if not args.cache and args.out is None:
        parser.error("give --cache or --out")
    modules = args.modules or manifest.load().modules
    fingerprints = {m: records.fingerprint(m) for m in modules}  # what was read, not what changed meanwhile
    for module, store in record(modules).items():
        if args.cache:
            records.save_cached(store, fingerprints[module])
        else:
            store.save(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
