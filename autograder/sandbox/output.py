"""What student code prints, as the grader keeps it: the first ``OUTPUT_LIMIT`` bytes per window, the rest counted."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import BinaryIO

from ..settings import OUTPUT_LIMIT


@dataclass
class OutputBuffer:
    """Keeps the first ``OUTPUT_LIMIT`` bytes printed since the last ``mark`` and counts the rest."""

    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def feed(self, chunk: bytes) -> None:
        with self.lock:
            room = OUTPUT_LIMIT - len(self.data)
            self.data += chunk[: max(room, 0)]
            self.dropped += max(len(chunk) - max(room, 0), 0)

    def text(self) -> str:
        return self.since(0)

    def clear(self) -> None:
        """Forget everything collected so far (a new submission starts)."""
        with self.lock:
            self.data, self.dropped = bytearray(), 0

    def mark(self) -> int:
        """Start a new window (one per problem, so one module's flood cannot hide another's output)."""
        with self.lock:
            self.data, self.dropped = bytearray(), 0
            return 0

    def since(self, mark: int) -> str:
        """Output printed after ``mark`` (within what was kept)."""
        with self.lock:
            text = bytes(self.data[mark:]).decode("utf-8", "replace") if mark < len(self.data) else ""
            return text + (f"\n[... {self.dropped} more bytes of output dropped]" if self.dropped else "")


class Drain:
    """A daemon thread that moves what a process prints (``stream``) into ``output``; ``waiting`` is set while it waits
    for more, so a caller can tell that everything printed so far has been taken."""

    def __init__(self, stream: BinaryIO, output: OutputBuffer) -> None:
        self.waiting = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(stream, output), daemon=True)
        self.thread.start()

    def _run(self, stream: BinaryIO, output: OutputBuffer) -> None:
        while True:
            self.waiting.set()
            chunk = stream.read1(65536)
            self.waiting.clear()
            if not chunk:
                return
            output.feed(chunk)

    def is_alive(self) -> bool:
        return self.thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self.thread.join(timeout)
