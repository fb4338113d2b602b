"""Time and memory linear in the sequence length, shown with little work.

A function of N tokens that builds an N x N matrix, or meets every key for every query, is told from a linear one
without running it where that is slow (``sandbox/worker/metering.py`` counts what a call costs where it runs):

1. torch's work (elements written and reduced, multiply-accumulates) from ``WORK_SIZES[0]`` to ``WORK_SIZES[1]`` tokens
   must grow as N, not N^2;
2. a call at ``LONG_N`` tokens may add at most ``LONG_MEMORY_MB`` of memory, which an N x N float64 matrix there
   (512 MiB) cannot fit;
3. work outside torch (numpy) is judged by the CPU time of the process that ran the call, from ``WORK_SIZES[1]``
   tokens (the counted call, which only slows torch's operations) to ``LONG_N``. Not from an uncounted call at 1024
   tokens: problem 6's fair per-token loop (``loop_over_recurrent_step``) grows 19 times from one (0.05 s -> 0.98 s),
   close to the limit, but 2.6 times from the counted call (0.38 s), while a blockwise numpy form grows 25 to 30 times
   from either (its 1024-token call has costs that do not grow as N^2).

Measured for problem 6 (causal_linear_attention; in-process, one thread): the reference, the fair variants and the
N x N form grow 3.99 to 4.02 times in work for 4 times the tokens, a loop that re-sums all earlier keys for every query
15.8 times; in the sandbox a quadratic numpy loop grew 39.5 times in CPU time (0.02 s -> 0.62 s) from 1024 to 8192
tokens, and the per-token loop of its fair variants takes about 1 s at 8192 tokens, less than its 1024 counted tokens.
For problem 5 (rff_attention, in the sandbox): blocks of queries against all keys grow 15.3 times in work in torch and
42.5 times in CPU time in numpy (0.03 s -> 1.14 s); every fair variant takes at most 0.11 s at 8192 tokens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .calls import Call
from .checks import expect_true, fail, size_in_bytes

WORK_SIZES = (256, 1024)
LONG_N, LONG_MEMORY_MB = 8192, 256
# 4 times the tokens may cost at most 8 times the work (N^1.5). Below WORK_FLOOR elements per token torch did almost
# nothing (numpy code): then only the CPU time can tell.
WORK_GROWTH_LIMIT, WORK_FLOOR = 8.0, 100
# 8 times the tokens may cost at most 8^1.5 times the CPU; below CPU_FLOOR seconds at LONG_N a call is fast whatever
# its growth (timer noise dominates there).
CPU_GROWTH_LIMIT, CPU_FLOOR = 8**1.5, 0.25


def expect_linear_in_tokens(function: Any, inputs: Callable[[int], tuple], never: str, instead: str, long: bool = True) -> None:
    """Fail unless ``function(*inputs(n))`` costs time and memory linear in ``n``, then compare its value at ``LONG_N``
    tokens with the reference's. ``never``: what a linear form never does ("sum over all earlier keys for every
    query"); ``instead``: what it does ("carry the running sums S_i and Z_i from one token to the next").
    ``long=False`` (a public test, at a modest size): torch's work from ``WORK_SIZES[0]`` to ``WORK_SIZES[1]`` tokens
    only, and the value at ``WORK_SIZES[1]``; the memory cap and the CPU time at ``LONG_N`` are left to a hidden test."""
    sizes = (*WORK_SIZES, LONG_N) if long else WORK_SIZES
    sized = {n: Call(function, *inputs(n)) for n in sizes}
    last = sizes[-1]
    name = sized[last].func
    costs = {}
    for n, call in sized.items():
        try:
            costs[n] = call.cost(work=n in WORK_SIZES, memory_mb=LONG_MEMORY_MB if n == LONG_N else None)
        except AssertionError as exc:
            room = f", more than the {LONG_MEMORY_MB} MiB this call may use" if n == LONG_N else ""
            fail(f"{exc}\nWith N = {n} tokens, {name} must use time and memory linear in N: it may never build an N x N "
                 f"matrix (an N x N float64 matrix would need {size_in_bytes(n * n * 8)} here{room}), nor {never}.")
            return
    small, large = WORK_SIZES
    growth = costs[large]["work"] / max(costs[small]["work"], 1)
    if costs[large]["work"] > WORK_FLOOR * large:
        expect_true(growth <= WORK_GROWTH_LIMIT,
                    f"with {large // small} times the tokens ({small} -> {large}), {name} did {growth:.1f} times the work in "
                    f"torch (elements computed and multiply-accumulates: {costs[small]['work']:,} -> {costs[large]['work']:,}); "
                    f"time linear in N allows about {large // small} (accepted up to {WORK_GROWTH_LIMIT:g}): it may not {never}; "
                    f"{instead}.", called=sized[large].shown)
    if long:
        cpu_growth = costs[LONG_N]["cpu_seconds"] / max(costs[large]["cpu_seconds"], 1e-3)
        expect_true(costs[LONG_N]["cpu_seconds"] <= CPU_FLOOR or cpu_growth <= CPU_GROWTH_LIMIT,
                    f"with {LONG_N // large} times the tokens ({large} -> {LONG_N}), {name} took {cpu_growth:.1f} times the "
                    f"CPU time ({costs[large]['cpu_seconds']:.2f} s -> {costs[LONG_N]['cpu_seconds']:.2f} s); time linear in N "
                    f"allows about {LONG_N // large} (accepted up to {CPU_GROWTH_LIMIT:.0f}): it may not {never}; {instead}.",
                    called=sized[LONG_N].shown)
    # No mistake's output is recorded for inputs this large (hints compare values); the messages above say enough.
    sized[last].matches(sized[last].reference(), hints=False)
