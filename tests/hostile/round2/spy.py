"""Round 2, a later submission that looks for what an earlier one left: SysV objects, files in its scratch folder,
processes. It is the reference otherwise and must score as it would alone."""

import ctypes as _ctypes
import os as _os


def _spy() -> list[str]:
    found = []
    libc = _ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0x18180018, 0, 0) >= 0:
        found.append("shared memory")
    if libc.msgget(0x18180018, 0) >= 0:
        found.append("message queue")
    scratch = _os.environ.get("TMPDIR") or "/tmp"
    try:
        found += [f"file {name}" for name in _os.listdir(scratch)]
    except OSError:
        pass
    return found


print(f"spy found: {_spy()}", flush=True)
