"""What both kinds of session share about one exchange with the process running student code."""

from __future__ import annotations

from dataclasses import dataclass

STARTUP_SECONDS = 120.0  # a worker's start (its torch import) on a slow, loaded machine: charged to no student


@dataclass
class CallRecord:
    """What one call cost, for reports and benchmarks."""

    module: str
    func: str
    seconds: float
    ok: bool
