"""What can go wrong in a call into student code, and whose fault it is.

``StudentCallError`` carries a message written for the student (it raised, timed out, crashed, or sent back
garbage) and a ``kind`` that reports count by; ``SandboxFault`` and ``SandboxUnavailable`` are the grader's
or its machine's, never the student's.
"""

from __future__ import annotations


class SandboxFault(RuntimeError):
    """The sandbox itself failed (a layer could not be applied): a fault of the grader's machine, never of the student."""


# The kinds of StudentCallError.
RAISED, IMPORT, TIMEOUT, CRASH, GARBAGE, RESOURCE = "raised", "import", "timeout", "crash", "garbage", "resource"
SKIPPED, BUDGET, DEADLINE = "skipped", "budget", "deadline"  # not run, by the time rules
NOT_RUN = (SKIPPED, BUDGET, DEADLINE)


class StudentCallError(AssertionError):
    """A call into student code failed: it raised (``raised`` names the exception's type), timed out, crashed, returned
    garbage, or was not run; ``kind`` says which."""

    def __init__(self, message: str, kind: str, raised: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.raised = raised


class SandboxUnavailable(RuntimeError):
    """Staff grading asked for on a machine where the sandbox cannot run: the grader refuses (never falls back)."""


def import_failure(module: str, error: dict) -> str:
    """What a student reads when their module could not be imported (``error``: the worker's reply)."""
    detail = (error.get("traceback") or "").rstrip()
    head = f"{module}.py could not be imported: {error.get('type', 'Error')}: {error.get('message', '')}"
    return head + (f"\n{detail}" if detail else "")


def timed_out(shown: str, seconds: float) -> StudentCallError:
    """A call (or an import) past its limit, which was stopped."""
    return StudentCallError(f"{shown} did not finish within the time limit of {seconds:g} s and was stopped.", TIMEOUT)


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
    if kind_of == "NotImplementedError":
        return StudentCallError(f"{shown} is not implemented yet (it raised NotImplementedError).", RAISED, kind_of)
    detail = (error.get("traceback") or "").rstrip()
    text = f"{shown} raised {kind_of or 'an error'}: {error.get('message', '')}"
    return StudentCallError(text + (f"\n{detail}" if detail else ""), RAISED, kind_of)
