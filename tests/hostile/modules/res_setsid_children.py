"""Resource abuse: leave 200 sleeping children behind, each in a session of its own (setsid), each holding 4 MB."""

import ctypes
import os
import time


def _child() -> None:
    try:
        os.setsid()
        hold = bytearray(4 << 20)
        for i in range(0, len(hold), 4096):
            hold[i] = 1
        ctypes.CDLL(None).prctl(15, b"__MARKER__", 0, 0, 0)  # PR_SET_NAME: how the test finds them
        time.sleep(1000)
    finally:
        os._exit(0)


def _launch(count: int) -> None:
    """A detached launcher forks the children, so the graded call returns at once."""
    if os.fork() != 0:
        return
    try:
        os.setsid()
        started = 0
        for _ in range(count):
            try:
                if os.fork() == 0:
                    _child()
                started += 1
            except OSError:
                break
        print("left behind", started, "children", flush=True)
        _child()
    finally:
        os._exit(0)


def argmax_attention(Q, K, V):
    _launch(200)
    return None
