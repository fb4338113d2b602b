"""What student code prints, as the grader keeps it: the first ``OUTPUT_LIMIT`` bytes per window, the rest counted
(and its last ``TAIL_LIMIT`` bytes kept, where the place of a call stopped at its limit is written: see
``stopped_at``)."""

from __future__ import annotations

import re
import select
import threading
from dataclasses import dataclass, field
from typing import BinaryIO

from ..settings import OUTPUT_LIMIT
from . import boundary

# Under the 8000 characters results.json keeps of the end, so the line saying how much was dropped stays in view.
TAIL_LIMIT = 4 * 1024
RECENT_LIMIT = 2000  # what a worker that failed to start printed last, for the grader's message
# Where a call was just before its limit: one line that the module's process writes at once (worker/serving.py).
_STACK = re.compile(rb"\n?\x00autograder-stack (\[[^\n]*\])\n")
_CARRY = 4096  # the longest such line (one pipe write)


@dataclass
class OutputBuffer:
    """Keeps the first ``OUTPUT_LIMIT`` bytes printed since the last ``mark`` and counts the rest."""

    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    tail: bytearray = field(default_factory=bytearray)  # the last TAIL_LIMIT bytes of what was dropped
    fed: int = 0  # every byte ever fed, kept or not (how much a call printed is the difference)

    stack: tuple[int, list[tuple[str, int, str]]] = (-1, [])  # (``fed`` when written, frames) of the last place written
    carry: bytes = b""  # the end of the previous chunk: a place's line may straddle two chunks
    start: int = 0  # ``fed`` when the window began: ``data`` holds what was fed from there
    tests: list[tuple[int, str, bool]] = field(default_factory=list)  # (``fed`` when each test began, its name, hidden)
    recent: bytearray = field(default_factory=bytearray)  # the last RECENT_LIMIT bytes fed, whatever the window

    def feed(self, chunk: bytes) -> None:
        with self.lock:
            window = self.carry + chunk
            # the pattern's optional start makes the regex scan slow: skip it when no marker can be there (a flood)
            for found in _STACK.finditer(window) if b"\x00" in window else ():
                self.stack = (self.fed, _frames(found.group(1)))
            self.carry = window[-_CARRY:]
            room = OUTPUT_LIMIT - len(self.data)
            self.data += chunk[: max(room, 0)]
            self.dropped += max(len(chunk) - max(room, 0), 0)
            self.fed += len(chunk)
            self.recent = (self.recent + chunk[-RECENT_LIMIT:])[-RECENT_LIMIT:]
            if len(chunk) > room:
                self.tail = (self.tail + chunk[max(room, 0):])[-TAIL_LIMIT:]

    def stopped_at(self, since: int = 0) -> list[tuple[str, int, str]]:
        """The frames (path, line, function; most recent first) of the last place a call wrote just before its limit,
        if it was written after ``since`` (a value of ``fed``); [] when there is none."""
        with self.lock:
            fed, frames = self.stack
            return frames if fed >= since else []

    def text(self) -> str:
        return self.since(0)

    def clear(self) -> None:
        """Forget everything collected so far (a new submission starts)."""
        self.mark()

    def mark(self) -> int:
        """Start a new window (one per problem, so one module's flood cannot hide another's output)."""
        with self.lock:
            self.data, self.dropped, self.tail = bytearray(), 0, bytearray()
            self.start, self.tests = self.fed, []
            return 0

    def begin(self, name: str, hidden: bool) -> None:
        """What is printed from now on is printed while test ``name`` runs; a ``hidden`` test's is never shown."""
        with self.lock:
            self.tests.append((self.fed, name, hidden))

    def shown(self) -> Printed:
        """What was printed in this window as the student may see it: the text printed while no hidden test ran (within
        what was kept), and how many bytes each hidden test printed."""
        with self.lock:
            hidden, counts = [], {}
            for (begun, name, secret), (ended, _, _) in zip(self.tests, [*self.tests[1:], (self.fed, "", False)]):
                if secret and ended > begun:
                    hidden.append((begun, ended))
                    counts[name] = counts.get(name, 0) + ended - begun
            kept_end = self.start + len(self.data)
            data = _outside(self.data, self.start, hidden)
            tail = _outside(self.tail, self.fed - len(self.tail), hidden)
            dropped = self.dropped - sum(min(e, self.fed) - max(b, kept_end) for b, e in hidden if e > kept_end)
            return Printed(_rendered(data, dropped, tail), counts)

    def fed_since(self, offset: int) -> str:
        """The last bytes fed since ``fed`` was ``offset`` (up to ``RECENT_LIMIT``), whatever window they fell in: what
        a worker printed while it started, which no submission's window keeps."""
        with self.lock:
            count = min(self.fed - offset, len(self.recent))
            return _rendered(self.recent[len(self.recent) - count:] if count > 0 else bytearray(), 0, bytearray())

    def since(self, mark: int) -> str:
        """Output printed after ``mark`` (within what was kept)."""
        with self.lock:
            return _rendered(self.data[mark:], self.dropped, self.tail)


@dataclass(frozen=True)
class Printed:
    """What a problem's code printed as the student may see it: ``text`` (printed while no hidden test ran) and, for
    each hidden test that printed, how many bytes (its text is never shown: it would carry the test's inputs)."""

    text: str
    hidden: dict[str, int]


def _outside(data: bytes | bytearray, start: int, ranges: list[tuple[int, int]]) -> bytes:
    """``data`` (which begins at ``fed`` value ``start``) without the bytes that fall in ``ranges`` (of ``fed``)."""
    kept, at = bytearray(), 0
    for begun, ended in ranges:
        lo, hi = min(max(begun - start, at), len(data)), min(max(ended - start, at), len(data))
        kept += data[at:lo]
        at = hi
    return bytes(kept + data[at:])


def _rendered(data: bytes | bytearray, dropped: int, tail: bytes | bytearray) -> str:
    """The kept start of what was printed, and (when some was dropped) how much and the last lines of it, as text."""
    text = _shown(data) if data else ""
    if dropped <= 0:
        return text
    last = _shown(tail).partition("\n")[2]  # from a line's start
    printed = len(data) + dropped
    # Named a flood only when what may be shown passed the limit by itself (not when a hidden test's output filled it).
    flood = (
        (
            f"[a flood of output: {printed:,} bytes printed, of which the first {len(data):,} and the last lines are "
            "kept; "
            "printing this much slows every call, so print less]\n"
        )
        if printed > OUTPUT_LIMIT
        else ""
    )
    return (flood + text + f"\n[... {dropped:,} more bytes of output dropped]"
            + (f"; the last lines printed:\n{last}" if last else ""))


def _shown(data: bytes | bytearray) -> str:
    """Printed bytes as the grader's text: places written for the grader left out, the rest made valid, inert text."""
    return boundary.text(bytes(_STACK.sub(b"", data)).decode("utf-8", "replace").replace("\r\n", "\n"))


def _frames(text: bytes) -> list[tuple[str, int, str]]:
    """The frames of a place line; [] for one that is not a short, shallow list of frames (whoever printed it)."""
    try:
        listed = boundary.json_value(text, _CARRY, max_depth=2)
    except ValueError:
        return []
    if not isinstance(listed, list):
        return []
    return [
        (str(f[0]), int(f[1]), str(f[2])) for f in listed if isinstance(f, list) and len(f) == 3 and type(f[1]) is int
    ]


class Drain:
    """A daemon thread that moves what a process prints (``stream``) into ``output``.

    ``caught_up()`` says whether everything printed so far has been taken. On POSIX the thread waits until the pipe is
    readable and then reads and feeds under a lock, so no byte is ever between the pipe and ``output`` while the lock is
    free: a caller that holds it and finds the pipe empty knows ``output`` has all of it (a byte read but not yet fed
    would be counted for the next test). Elsewhere (Windows) ``waiting`` is set while the thread waits for more."""

    def __init__(self, stream: BinaryIO, output: OutputBuffer) -> None:
        self.waiting = threading.Event()
        self.taking = threading.Lock()
        self._fd = _countable_fd(stream)
        self.thread = threading.Thread(target=self._run, args=(stream, output), daemon=True)
        self.thread.start()

    def _run(self, stream: BinaryIO, output: OutputBuffer) -> None:
        while True:
            self.waiting.set()
            if self._fd is not None:
                select.select([self._fd], [], [])
            with self.taking:
                chunk = stream.read1(65536)
                self.waiting.clear()
                if chunk:
                    output.feed(chunk)
            if not chunk:
                return

    def caught_up(self) -> bool:
        """Whether everything the process printed so far is in ``output`` (on POSIX: for certain; elsewhere: the thread
        waits for more)."""
        if self._fd is None:
            return self.waiting.is_set()
        with self.taking:
            return _pending_bytes(self._fd) == 0

    @property
    def exact(self) -> bool:
        """Whether ``caught_up`` is certain (POSIX: the bytes left in the pipe are counted under the lock)."""
        return self._fd is not None

    def is_alive(self) -> bool:
        return self.thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self.thread.join(timeout)


def _countable_fd(stream: BinaryIO) -> int | None:
    """The stream's file descriptor where the bytes waiting in its pipe can be counted (POSIX), else None."""
    try:
        import fcntl  # noqa: F401 - only whether it is there
        import termios  # noqa: F401
    except ImportError:  # Windows, or a Python without them
        return None
    return stream.fileno()


def _pending_bytes(fd: int) -> int:
    """How many bytes wait to be read in the pipe ``fd`` (0 once it is closed)."""
    import fcntl  # POSIX only: imported here so that the portable path (Windows) can import this module
    import termios

    try:
        return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4), "little")
    except (OSError, ValueError):
        return 0
