"""The disk: a folder tree deeper than Python's recursion limit (made with dir_fd), more hard links than the grader's
cap on scratch entries, and a thread that keeps writing after each call returns.

Each attack goes just past what it tests and no further: its calls' time is charged to the module's budget like any
other, and on a slow disk (scratch on ext4 in the modes without bubblewrap's tmpfs) tens of thousands of operations
took enough of it to cost the attacker honest points, which would hide what the test is about."""

import os
import sys
import threading

DEEPER_THAN_RECURSION = sys.getrecursionlimit() + 200
MORE_THAN_THE_ENTRY_CAP = 12_000  # the grader stops a call past 10,000 entries in scratch (cleanup.MAX_ENTRIES)


def _scratch() -> str:
    return os.environ.get("TMPDIR") or "/tmp"


def _deep(levels: int = DEEPER_THAN_RECURSION) -> int:
    fd, made = os.open(_scratch(), os.O_RDONLY | os.O_DIRECTORY), 0
    try:
        for _ in range(levels):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd, made = inner, made + 1
    except OSError:
        pass
    finally:
        os.close(fd)
    return made


def _links(count: int = MORE_THAN_THE_ENTRY_CAP) -> int:
    base = os.path.join(_scratch(), "l")
    made = 0
    try:
        os.mkdir(base)
        with open(os.path.join(base, "f"), "w") as f:
            f.write("x")
        for i in range(count):
            os.link(os.path.join(base, "f"), os.path.join(base, str(i)))
            made += 1
    except OSError:
        pass
    return made


def _writer(limit_mb: int = 400) -> None:
    chunk = b"\0" * (1 << 20)
    written = 0
    try:
        for i in range(limit_mb // 16):
            with open(os.path.join(_scratch(), f"w{i}"), "wb") as f:
                for _ in range(16):
                    f.write(chunk)
                    written += 1
            print(f"thread wrote {written} MB", flush=True)
    except OSError:
        pass


def argmax_attention(Q, K, V):
    shape = tuple(Q.shape)
    if shape == (3, 2):
        print(f"deep: {_deep()} levels", flush=True)
    elif shape == (2, 2):
        print(f"links: {_links()}", flush=True)
    else:
        threading.Thread(target=_writer, daemon=True).start()
    return None
