"""What can go wrong in a call into student code, and whose fault it is.

``StudentCallError`` carries a message written for the student (it raised, timed out, crashed, or sent back
garbage) and a ``kind`` that reports count by; ``SandboxFault`` and ``SandboxUnavailable`` are the grader's
or its machine's, never the student's.
"""

from __future__ import annotations


class SandboxFault(RuntimeError):
    """The sandbox itself failed (a layer could not be applied): a fault of the grader's machine, never of the student."""


class StudentCallError(AssertionError):
    """A call into student code failed: it raised, timed out, crashed, or returned garbage."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class SandboxUnavailable(RuntimeError):
    """Staff grading asked for on a machine where the sandbox cannot run: the grader refuses (never falls back)."""


def import_failure(module: str, error: dict) -> str:
    detail = (error.get("traceback") or "").rstrip()
    head = f"{module}.py could not be imported: {error.get('type', 'Error')}: {error.get('message', '')}"
    return head + (f"\n{detail}" if detail else "")


def call_failure(shown: str, error: dict) -> str:
    if error.get("type") == "NotImplementedError":
        return f"{shown} is not implemented yet (it raised NotImplementedError)."
    detail = (error.get("traceback") or "").rstrip()
    text = f"{shown} raised {error.get('type', 'an error')}: {error.get('message', '')}"
    return text + (f"\n{detail}" if detail else "")
