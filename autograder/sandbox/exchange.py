"""What both kinds of session record about each exchange with the process running student code."""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import STARTUP_SECONDS  # noqa: F401 - the sessions read it here


@dataclass(frozen=True)
class Exchange:
    """One import or call: how long it took against its limit, and whether it had to be stopped (timeout, crash,
    garbage, overuse). The time rules (``grading.time_rules``) charge budgets from these; benchmarks read them too."""

    module: str
    op: str  # "import", "call" or "reset" (ending a test's processes and checking what they left)
    func: str  # "" for an import
    seconds: float
    limit: float
    stopped: bool
    waited: float = 0.0  # of ``seconds``, how long its process was ready to run but waited for a CPU (0 where unknown)
    cpu: float | None = None  # CPU seconds of everything it ran, read in /proc by the grader (None where unknown)
