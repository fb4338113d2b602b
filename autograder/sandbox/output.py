"""What student code prints, as the grader keeps it: the first ``OUTPUT_LIMIT`` bytes per window, the rest counted
(and its last ``TAIL_LIMIT`` bytes kept, where the stack of a call stopped at its limit is written: see ``stopped_at``)."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import BinaryIO

OUTPUT_LIMIT = 64 * 1024
TAIL_LIMIT = 8 * 1024
# What faulthandler.dump_traceback_later writes (worker/serving.py arms it just before a call's limit): a header line, then
# per thread a line and its frames, most recent first.
_STACK = re.compile(rb"Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!\n(?:(?:Thread|Current thread|Stack) [^\n]*\n(?:  File [^\n]*\n|  <[^\n]*\n)*\n?)+")
_FRAME = re.compile(r'  File "(?P<path>[^"]*)", line (?P<line>\d+) in (?P<func>.+)')


@dataclass
class OutputBuffer:
    """Keeps the first ``OUTPUT_LIMIT`` bytes printed since the last ``mark`` and counts the rest."""

    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    tail: bytearray = field(default_factory=bytearray)  # the last TAIL_LIMIT bytes of what was dropped
    fed: int = 0  # every byte ever fed, kept or not (how much a call printed is the difference)

    def feed(self, chunk: bytes) -> None:
        with self.lock:
            room = OUTPUT_LIMIT - len(self.data)
            self.data += chunk[: max(room, 0)]
            self.dropped += max(len(chunk) - max(room, 0), 0)
            self.fed += len(chunk)
            if len(chunk) > room:
                self.tail = (self.tail + chunk[max(room, 0):])[-TAIL_LIMIT:]

    def stopped_at(self) -> list[tuple[str, int, str]]:
        """The frames (path, line, function; most recent first) of the last stack dumped at a call's limit, removed from
        what is shown; [] when there is none."""
        with self.lock:
            frames: list[tuple[str, int, str]] = []
            for part in ("data", "tail"):
                buffer = getattr(self, part)
                found = list(_STACK.finditer(buffer))
                if found:
                    text = found[-1].group().decode("utf-8", "replace")
                    frames = [(m["path"], int(m["line"]), m["func"].strip()) for m in map(_FRAME.match, text.splitlines()) if m]
                    setattr(self, part, bytearray(_STACK.sub(b"", buffer)))
            return frames

    def text(self) -> str:
        return self.since(0)

    def clear(self) -> None:
        """Forget everything collected so far (a new submission starts)."""
        with self.lock:
            self.data, self.dropped, self.tail = bytearray(), 0, bytearray()

    def mark(self) -> int:
        """Start a new window (one per problem, so one module's flood cannot hide another's output)."""
        with self.lock:
            self.data, self.dropped, self.tail = bytearray(), 0, bytearray()
            return 0

    def since(self, mark: int) -> str:
        """Output printed after ``mark`` (within what was kept)."""
        with self.lock:
            text = bytes(_STACK.sub(b"", self.data[mark:])).decode("utf-8", "replace") if mark < len(self.data) else ""
            if not self.dropped:
                return text
            tail = bytes(_STACK.sub(b"", self.tail)).decode("utf-8", "replace").partition("\n")[2]  # from a line's start
            return text + f"\n[... {self.dropped} more bytes of output dropped]" + (f"; the last lines printed:\n{tail}" if tail else "")


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
