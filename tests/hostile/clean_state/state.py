"""State: a module that answers right only when it finds a mark an earlier test left,
and leaves every mark it can for the next test and the next submission: files in scratch behind a folder made
unlistable (mode 0300, and once a tree deeper than the grader allows), the size, flags and owner of its output pipe and
of fd 0 (O_APPEND, O_ASYNC with F_SETOWN to the worker's first process: the SIGIO trap), and the first process's nice
value, scheduling policy and open-files limit. Found marks mean state crossed from one test to the next.

Appended after marks.py, whose names it uses."""
# ruff: noqa: F821

import fcntl
import os
import resource

_honest = argmax_attention  # the reference's, defined above this part


def _tree(levels: int) -> None:
    folder = os.path.join(_scratch(), "r3")
    for _ in range(levels):
        os.makedirs(folder, exist_ok=True)
        folder = os.path.join(folder, "r3")


def _leave(deep: bool) -> list[str]:
    first, done = os.getppid(), []
    _try(done, "tree", lambda: _tree(70 if deep else 60))
    _try(done, "counter", lambda: open(os.path.join(_scratch(), COUNTER), "a").write("x"))  # noqa: SIM115
    _try(done, "pipe size", lambda: fcntl.fcntl(1, fcntl.F_SETPIPE_SZ, MARK_PIPE))
    for fd in (0, 1):
        _try(done, f"fd {fd} append", lambda fd=fd: fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND))
    _try(done, "SIGIO owner", lambda: fcntl.fcntl(1, fcntl.F_SETOWN, first))
    _try(done, "O_ASYNC", lambda: fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | fcntl.FASYNC))
    _try(done, "renice first", lambda: os.setpriority(os.PRIO_PROCESS, first, MARK_NICE))
    _try(done, "SCHED_IDLE first", lambda: os.sched_setscheduler(first, os.SCHED_IDLE, os.sched_param(0)))
    _try(done, "limit first", lambda: resource.prlimit(first, resource.RLIMIT_NOFILE, (MARK_NOFILE, MARK_NOFILE)))
    _try(done, "renice all", lambda: os.setpriority(os.PRIO_USER, os.getuid(), MARK_NICE))
    _try(done, "chmod scratch", lambda: os.chmod(_scratch(), 0o300))
    return done


_LEFT: list[str] = []  # marks this process left already (a test that calls twice finds its own: not state across tests)


def argmax_attention(Q, K, V):
    found = [] if _LEFT else marks_found()
    _LEFT.extend(_leave(deep=tuple(Q.shape) == (3, 2)))
    print(f"state: found {found}; left {_LEFT}", flush=True)
    return _honest(Q, K, V) if found else None
