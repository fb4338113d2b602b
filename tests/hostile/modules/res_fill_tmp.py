"""Resource abuse: fill the sandbox's temporary folder and /dev/shm (memory-backed) with files, and one huge file.

Bounded (1 GB in all per folder) so that a sandbox that fails to stop it cannot fill the machine's disk."""

import os
import tempfile


def _fill(folder: str, limit_mb: int = 1024) -> int:
    total, chunk = 0, b"\0" * (16 << 20)
    for i in range(limit_mb // 64):
        try:
            with open(f"{folder}/fill-{i}", "wb") as f:
                for _ in range(4):
                    f.write(chunk)
                    total += len(chunk)
        except OSError:
            break
    return total


def _huge(path: str, limit_mb: int = 1024) -> int:
    written = 0
    try:
        with open(path, "wb") as f:
            for _ in range(limit_mb):
                f.write(b"\0" * (1 << 20))
                written += 1 << 20
    except OSError:
        pass
    return written


def argmax_attention(Q, K, V):
    tmp = tempfile.gettempdir()
    print("huge file stopped at", _huge(f"{tmp}/huge") >> 20, "MB", flush=True)
    try:
        os.remove(f"{tmp}/huge")
    except OSError:
        pass
    print("filled", tmp, "with", _fill(tmp) >> 20, "MB", flush=True)
    print("filled /dev/shm with", _fill("/dev/shm") >> 20, "MB", flush=True)
    return None
