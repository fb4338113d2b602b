"""What can go wrong in a call into student code, and whose fault it is.

``StudentCallError`` carries a message written for the student (it raised, timed out, crashed, or sent back
garbage) and a ``kind`` that reports count by; ``SandboxFault`` and ``SandboxUnavailable`` are the grader's
or its machine's, never the student's.
"""

from __future__ import annotations

import builtins
import os
import re
from dataclasses import dataclass
from typing import Any

from .worker import metering


class SandboxFault(RuntimeError):
    """The sandbox itself failed (a layer could not be applied): a fault of the grader's machine, never of the
    student."""


# The kinds of StudentCallError.
RAISED, IMPORT, TIMEOUT, CRASH, GARBAGE, RESOURCE = "raised", "import", "timeout", "crash", "garbage", "resource"
CHANGED_ARGUMENT = "changed_argument"  # it returned, but modified a tensor passed in
SKIPPED, BUDGET, DEADLINE = "skipped", "budget", "deadline"  # not run, by the time rules
# Stopped at its limit, or not run after such a stop or a budget spent so, while the machine gave the code too little of
# a CPU to time it fairly (the time rules judge it): the grader's fault, not the student's.
BUSY, BUSY_NOT_RUN = "busy", "busy_not_run"
NOT_RUN = (SKIPPED, BUDGET, DEADLINE, BUSY_NOT_RUN)
MACHINE = (DEADLINE, BUSY, BUSY_NOT_RUN)  # the kinds that are the grading machine's fault, never the student's


class StudentCallError(AssertionError):
    """A call into student code failed: it raised (``raised`` names the exception's type, ``raised_as`` the built-in
    exception classes it is an instance of, nearest first), timed out, crashed, returned garbage, or was not run;
    ``kind`` says which."""

    def __init__(
        self, message: str, kind: str, raised: str = "", waited: float = 0.0, limit: TimeLimit | None = None,
        raised_as: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.raised = raised
        self.raised_as = raised_as
        self.waited = waited  # a call stopped at its limit: how long of it its main thread waited for a CPU
        self.limit = limit  # a call stopped at its limit: which limit, and what it used of each

    def raised_a(self, builtin: str) -> bool:
        """Whether the call raised an instance of the built-in exception class named ``builtin`` (a subclass of it
        too, as ``except`` would catch it)."""
        return self.kind == RAISED and builtin in self.raised_as

    def without_traceback(self) -> StudentCallError:
        """The same error, holding no frames (kept on a tape after the call)."""
        return StudentCallError(str(self), self.kind, self.raised, raised_as=self.raised_as)


@dataclass(frozen=True)
class TimeLimit:
    """How a call stopped at its limit was stopped: ``seconds`` is its limit; ``cpu_limit`` the CPU seconds that allows
    (None: the limit was wall clock only); ``wall`` and ``cpu`` what it took and used until then (``cpu`` None: not
    known); ``by_cpu`` whether it used its CPU limit (else the wall clock stopped it)."""

    seconds: float
    cpu_limit: float | None = None
    wall: float = 0.0
    cpu: float | None = None
    by_cpu: bool = False


class SandboxUnavailable(RuntimeError):
    """Staff grading asked for on a machine where the sandbox cannot run: the grader refuses (never falls back)."""


def worker_not_started(why: str, output: str, python: str) -> str:
    """Why the grading worker did not start, from what it printed: a package its Python lacks is named with the fix
    (no student code has run yet, so this is never the student's)."""
    lacking = re.findall(r"ModuleNotFoundError: No module named '([\w.]+)'", output)
    if lacking:
        package = lacking[-1].partition(".")[0]
        return (f"the grading worker could not import {package}, which this Python ({python}) does not have: "
                f"install it there (`pip install {package}`; the README lists every dependency), or run a Python that "
                f"has them (staff: `.venv/bin/python -m autograder ...`, the .venv that `make autograder` makes)")
    return f"the grading worker did not start ({why}); output:\n{output}"


def import_failure(module: str, error: dict) -> str:
    """What a student reads when their module could not be imported (``error``: the worker's reply)."""
    detail = (error.get("traceback") or "").rstrip()
    head = f"{module}.py could not be imported: {error.get('type', 'Error')}: {error.get('message', '')}"
    return head + (f"\n{detail}" if detail else "")


FLOOD_BYTES = (
    64 << 10
)  # printed during one call that ran out of time, more than the grader keeps: printing is part of why


def timed_out(
    shown: str,
    seconds: float | TimeLimit,
    frames: list[tuple[str, int, str]] | None = None,
    folder: str | None = None,
    printed: int = 0,
    waited: float = 0.0,
) -> StudentCallError:
    """A call (or an import) past its limit, which was stopped; ``seconds``: its limit, or how it was stopped
    (``TimeLimit``); ``frames`` (most recent first) say where it was, the ones in the submission's ``folder`` being the
    student's; ``printed``: the bytes it printed meanwhile; ``waited``: the seconds its main thread waited for a CPU
    (the time rules judge whether the machine, not the code, was slow)."""
    limit = seconds if isinstance(seconds, TimeLimit) else TimeLimit(seconds)
    text = f"{shown} did not finish within the time limit of {limit.seconds:g} s and was stopped"
    if limit.by_cpu:
        text += (
            f": it used {limit.cpu_limit:g} s of CPU time, all that the limit allows (limits are CPU time at half a "
            f"CPU, as on Gradescope; threads and processes it starts count too)."
        )
    elif limit.cpu_limit is not None and limit.cpu is not None:
        text += (
            f": after {limit.wall:.1f} s of wall clock it had used only {limit.cpu:.1f} s of its {limit.cpu_limit:g} s "
            "of "
            f"CPU time (a call that sleeps or waits is stopped too)."
        )
    else:
        text += "."
    own = [f for f in frames or [] if folder and os.path.basename(os.path.dirname(f[0])) == folder]
    if own:
        path, line, func = own[0]
        inside = " (in a library call made there)" if frames and frames[0] != own[0] else ""
        text += f" It was at {os.path.basename(path)}, line {line}, in {func}{inside}."
    if printed >= FLOOD_BYTES:
        size = f"{printed / (1 << 20):.1f} MB" if printed >= 1 << 20 else f"{printed >> 10} KB"
        text += (f" Meanwhile it printed {size} of output: printing that much is slow by itself, "
                 "so remove the print calls inside loops.")
    return StudentCallError(text, TIMEOUT, waited=waited, limit=limit)


def crashed(shown: str, what: str) -> StudentCallError:
    """The process running the student's code ended (``what``: how) during the call."""
    return StudentCallError(f"The process running your code {what} during {shown}.", CRASH)


def unreadable(shown: str, why: object) -> StudentCallError:
    """The reply could not be read as plain data."""
    return StudentCallError(f"{shown} sent back something unreadable ({why}).", GARBAGE)


def broken_import(module: str, what: str) -> str:
    """What a student reads when importing ``module`` was stopped or ended its process (``what``: how)."""
    return f"{module}.py could not be imported: {what}."


def raised(shown: str, error: dict) -> StudentCallError:
    """The error of a call whose student code raised (``error``: the worker's reply), as the student reads it."""
    kind_of = str(error.get("type", ""))
    listed = error.get("builtins")
    raised_as = tuple(str(name)[:80] for name in listed[:64]) if isinstance(listed, list) else ()
    if kind_of == "NotImplementedError":
        return StudentCallError(f"{shown} is not implemented yet (it raised NotImplementedError).", RAISED, kind_of,
                                raised_as=raised_as)
    detail = (error.get("traceback") or "").rstrip()
    message = str(error.get("message", ""))
    text = f"{shown} raised {kind_of or 'an error'}: {message}"
    if isinstance(getattr(builtins, kind_of, None), type) and kind_of not in raised_as:
        text = f"{shown} raised {kind_of} (a class of its own, not Python's {kind_of}): {message}"
    if _CUDA.search(message):
        text += f"\n{CPU_ONLY}"
    return StudentCallError(text + (f"\n{detail}" if detail else ""), RAISED, kind_of, raised_as=raised_as)


_CUDA = re.compile(r"CUDA|cuda|NVIDIA|nvidia")
CPU_ONLY = ("Your work is graded on a CPU, with no GPU: remove .cuda(), .to('cuda') and device='cuda', and create new "
            "tensors on the inputs' device (device=X.device), so the code runs wherever it is called.")


def changed_arguments(shown: str, names: object) -> StudentCallError | None:
    """A call that returned but modified tensors it was given (``names``: the worker's list), or None."""
    if not isinstance(names, list) or not names:
        return None
    listed = ", ".join(str(n)[:80] for n in names[:20])
    what = f"argument {listed}" if len(names) == 1 else f"arguments {listed}"
    return StudentCallError(
        f"{shown}: your function changed its {what} in place. Functions must leave their inputs as they "
        "were: compute a new tensor (X = X + 1, X.clone()) instead of writing into one passed in "
        "(X += 1, X[...] = ..., X.add_()).",
        CHANGED_ARGUMENT,
    )


def answer(shown: str, header: dict, meter: dict | None) -> Any:
    """What a call's reply means: its value (with ``meter``, the value and what the call cost, see worker/metering.py),
    or the ``StudentCallError`` of a call that raised, changed an argument or sent back an unreadable cost."""
    if not header.get("ok"):
        raise raised(shown, header.get("error", {}))
    changed = changed_arguments(shown, header.get("changed"))
    if changed is not None:
        raise changed
    if meter is None:
        return header["value_decoded"]
    try:
        return header["value_decoded"], metering.read_report(header.get("metered"))
    except ValueError as exc:
        raise unreadable(shown, exc) from None
