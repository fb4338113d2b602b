"""Resource abuse: spawn hundreds of processes that sleep (bounded, so a broken sandbox cannot take the machine down)."""

import os

ATTEMPTS = 600


def _spawn() -> int:
    started = 0
    for _ in range(ATTEMPTS):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            try:
                os.execv("/bin/sleep", ["sleep-__MARKER__", "1000"])
            finally:
                os._exit(0)
        started += 1
    return started


def argmax_attention(Q, K, V):
    print("spawned", _spawn(), "processes", flush=True)
    return None
