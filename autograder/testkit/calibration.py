"""How fast this machine does linear work: a yardstick for CPU times that must not depend on the machine's speed.

The grader times, in its own thread (which no submission runs in), causal linear attention in numpy over
``TOKENS`` tokens (two feature columns, 64 value columns: problem 6's long-sequence shapes), without BLAS, so one
thread does all of it whatever the machine's cores. ``testkit/scaling.py`` scales its floor of CPU time by it: a
machine twice as fast halves both the yardstick and the student's call.
"""

from __future__ import annotations

import time

import numpy as np

TOKENS = 1024
# After one run untimed (numpy's first calls set things up), at least MIN_RUNS runs and MIN_SECONDS of thread CPU time
# in all: where the thread clock ticks coarsely (Windows: 15.6 ms) the runs go on until it has advanced; MAX_RUNS
# bounds a clock that never does.
MIN_RUNS, MIN_SECONDS, MAX_RUNS = 3, 0.008, 200
# Measured again once this old: a core's pace changes with the machine's load (a busy sibling thread), and one grader
# process (grade-all's, validate's) grades for minutes.
REMEASURE_AFTER = 30.0
_MEASURED: list[tuple[float, float]] = []  # (when, seconds per token)


def _linear_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, into: dict[str, np.ndarray]) -> None:
    # Into buffers made once: a fresh array's pages cost as much again as the work, and what that costs depends on
    # what the process allocated before (about 1.7 times between two processes, measured).
    phi_q, phi_k, sums, key_sums = (np.exp(q, out=into["phi_q"]), np.exp(k, out=into["phi_k"]), into["sums"],
                                    into["key_sums"])
    np.cumsum(np.multiply(phi_k[:, :, None], v[:, None, :], out=sums), axis=0, out=sums)
    norms = np.einsum("nc,nc->n", phi_q, np.cumsum(phi_k, axis=0, out=key_sums), out=into["norms"])
    np.divide(np.einsum("nc,ncm->nm", phi_q, sums, out=into["out"]), norms[:, None], out=into["out"])


def linear_attention_seconds(tokens: int) -> float:
    """CPU seconds this machine takes for causal linear attention in numpy over ``tokens`` tokens (measured on
    ``TOKENS`` tokens at most every ``REMEASURE_AFTER`` seconds: 12 ms of CPU on the project's machine, about 20 ms
    within a grading run)."""
    now = time.monotonic()
    if not _MEASURED or now - _MEASURED[0][0] > REMEASURE_AFTER:
        _MEASURED[:] = [(now, _seconds_per_token())]
    return _MEASURED[0][1] * tokens


def _seconds_per_token() -> float:
    # Inputs of the size of standard normal ones, without a generator's set-up (which costs as much as the runs).
    q, k, v = (np.sin(np.arange(TOKENS * cols) * step).reshape(TOKENS, cols)
               for cols, step in ((2, 0.7), (2, 1.3), (64, 0.3)))
    into = {"phi_q": np.empty_like(q), "phi_k": np.empty_like(k), "sums": np.empty((TOKENS, 2, 64)),
            "key_sums": np.empty_like(k), "norms": np.empty(TOKENS), "out": np.empty_like(v)}
    _linear_attention(q, k, v, into)
    runs, start = 0, time.thread_time()
    while runs < MAX_RUNS and (runs < MIN_RUNS or time.thread_time() - start < MIN_SECONDS):
        _linear_attention(q, k, v, into)
        runs += 1
    return max(time.thread_time() - start, MIN_SECONDS) / (runs * TOKENS)  # never 0: it divides
