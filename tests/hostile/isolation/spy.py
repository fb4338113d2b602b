"""A later submission that looks for what an earlier one left: SysV objects, files in its scratch folder, processes,
and the marks of ``clean_state/state.py``. It is the reference otherwise and must score as it would alone."""

import ctypes as _ctypes
import os as _os
import sys as _sys


def _sandbox_own(scratch: str) -> set[str]:
    """Top folders in scratch that hold what the sandbox itself binds there: bubblewrap mounts a Python install or
    worker that lives under the host's /tmp into the sandbox's /tmp, which is the scratch folder."""
    own = set()
    for path in {_sys.prefix, _sys.base_prefix, _sys.exec_prefix, _os.path.dirname(_os.__file__), _os.path.dirname(_sys.argv[0] or ".")}:
        rel = _os.path.relpath(_os.path.realpath(path), _os.path.realpath(scratch))
        if rel != "." and not rel.startswith(".."):
            own.add(rel.split(_os.sep)[0])
    return own


def _spy() -> list[str]:
    found = []
    libc = _ctypes.CDLL(None, use_errno=True)
    if libc.shmget(0x18180018, 0, 0) >= 0:
        found.append("shared memory")
    if libc.msgget(0x18180018, 0) >= 0:
        found.append("message queue")
    scratch = _os.environ.get("TMPDIR") or "/tmp"
    try:
        found += [f"file {name}" for name in _os.listdir(scratch) if name not in _sandbox_own(scratch)]
    except OSError:
        pass
    return found + marks_found()  # noqa: F821 - clean_state/marks.py, placed above this part


print(f"spy found: {_spy()}", flush=True)
