"""What student code prints, as the grader keeps it: the first ``OUTPUT_LIMIT`` bytes per window, the rest counted."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

OUTPUT_LIMIT = 64 * 1024


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
