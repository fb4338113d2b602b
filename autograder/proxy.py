"""Stand-ins for the student's modules: calling one runs the function in the sandbox."""

from __future__ import annotations

from typing import Any

from .sandbox.client import WorkerSession
from .time_rules import CallGuard


class StudentFunction:
    """``module.func`` of the submission; calling it returns plain data or raises StudentCallError."""

    def __init__(self, session: WorkerSession, module: str, func: str, seconds: float, worker_name: str, guard: CallGuard) -> None:
        self.session, self.module, self.func, self.seconds = session, module, func, seconds
        self.worker_name, self.guard = worker_name, guard

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from .calls import describe_call

        shown = describe_call(self.module, self.func, args, kwargs)
        return self.guard.call(self.session, self.worker_name, self.module, self.func, args, kwargs, self.seconds, shown)

    def __repr__(self) -> str:
        return f"<student function {self.module}.{self.func}>"


class StudentModule:
    """Attribute access gives ``StudentFunction``s; nothing of the student's is imported here."""

    def __init__(self, session: WorkerSession, module: str, seconds: float, worker_name: str | None = None,
                 guard: CallGuard | None = None) -> None:
        self._session, self._module, self._seconds = session, module, seconds
        # Staff validation stages many variants of one problem side by side under other names.
        self._worker_name = worker_name or module
        self._guard = guard or CallGuard()

    def __getattr__(self, func: str) -> StudentFunction:
        if func.startswith("__"):
            raise AttributeError(func)
        return StudentFunction(self._session, self._module, func, self._seconds, self._worker_name, self._guard)

    def __repr__(self) -> str:
        return f"<student module {self._module} (runs in the sandbox)>"
