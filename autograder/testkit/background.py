"""Grader-side work started early on a thread, so it runs while the sandbox computes."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Any


class Background:
    """``compute()`` running on a daemon thread from now on; ``result()`` waits for it and re-raises its error.

    The grader mostly waits on the worker, so work that takes a while (looking up the reference's
    spread over many seeds, recording it at build time) is best started when a test file loads.
    """

    def __init__(self, compute: Callable[[], Any]) -> None:
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        # In the caller's context: a recording in progress (calls.RECORDER) applies to the thread too.
        context = contextvars.copy_context()
        threading.Thread(
            target=context.run, args=(self._run, compute), name="autograder-background", daemon=True
        ).start()

    def _run(self, compute: Callable[[], Any]) -> None:
        try:
            self._value = compute()
        except BaseException as exc:  # noqa: BLE001 - handed to whoever asks for the result
            self._error = exc
        finally:
            self._done.set()

    def result(self) -> Any:
        """The value of ``compute()`` (waiting for it if need be)."""
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value
