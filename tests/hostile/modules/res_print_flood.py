"""Resource abuse: print hundreds of megabytes to stdout and stderr."""

import os
import sys

LINE = ("All tests passed " * 8 + "\n") * 1000


def _flood(megabytes: int) -> None:
    chunk = LINE.encode()
    for i in range(megabytes * (1 << 20) // len(chunk)):
        os.write(1 if i % 2 else 2, chunk)


_flood(50)


def argmax_attention(Q, K, V):
    # One graded call floods (queries of shape (3, 2), the first): each flood takes seconds on a loaded machine, and the
    # function's other calls would then spend the module's time budget, which is not what this case is about.
    if tuple(Q.shape) == (3, 2):
        _flood(150)
        sys.stdout.write("x" * (50 << 20))
    return None
