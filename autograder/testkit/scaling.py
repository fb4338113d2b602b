"""Time and memory linear in the sequence length, shown with little work.

A function of N tokens that builds an N x N matrix, or meets every key for every query, is told from a linear one
without running it where that is slow:

1. torch's work (elements written and reduced, multiply-accumulates) from ``WORK_SIZES[0]`` to ``WORK_SIZES[1]`` tokens
   must grow as N, not N^2 (``sandbox/worker/metering.py`` counts it inside the student's process, where code can undo
   it: in the hidden test it may explain a verdict, never pass one; the public test at a modest size judges by it
   alone, so work outside torch, or a count undone, passes there and is judged by the hidden test);
2. a call at ``LONG_N`` tokens may add at most ``LONG_MEMORY_MB`` of memory, which an N x N float64 matrix there
   (512 MiB) cannot fit: a hard address-space limit the worker's first process sets on every process of the call before
   it runs, which student code cannot raise;
3. the CPU time of everything the call ran (its threads and child processes), read by the grader in /proc, must grow
   linearly: what it grew from ``WORK_SIZES[0]`` to ``LONG_N`` tokens against what it grew from ``WORK_SIZES[0]`` to
   ``WORK_SIZES[1]`` (about 10 for linear code, 68 for quadratic). Growths, not the times themselves: a fixed cost per
   call (forking a process, a padding loop) would otherwise hide quadratic work. The call at ``WORK_SIZES[1]`` is read
   twice and its lesser CPU time kept, since a burst of load there would raise the growth's denominator; the call at
   ``LONG_N``, when it fails the check, is read again in a fresh process of the module and its lesser CPU time kept,
   since a burst there (a fair variant writing columns of an 8 MB array once took 0.20 s against its usual 0.05 s in
   CI, beside the suite's other workers) would fail linear code; a fresh process, as a new test's, so that nothing the
   first reading computed (the answer, or answers to inputs it could foresee) makes the second cheap. The two smaller
   calls are counted, which only slows torch's operations: a fair per-token loop then grows less, never more. A fast
   linear call's growth is timer noise, so any growth passes while the call at ``LONG_N`` took at most
   ``CPU_FLOOR_LINEAR_FORMS`` yardsticks more than the one at ``WORK_SIZES[0]``; the yardstick is what causal linear
   attention over ``LONG_N`` tokens takes on this machine, timed by the grader in its own thread
   (``testkit/calibration.py``). Every figure the verdict compares is then a ratio of CPU times of one machine: a
   machine some times faster per core divides them all and gives the same verdict (a floor in seconds let the quadratic
   forms below pass on a machine twice as fast);
4. a submission can add CPU time to any call, never take it away, so CPU spent only in the smaller calls (50 ms of
   spinning at 1024 tokens, a second at 256) raised what the long call was compared with and passed quadratic work.
   So a last call, at ``CAPPED_N`` tokens, in a fresh process (nothing an earlier call computed reaches it), must take
   at most ``CPU_CAP_YARDSTICKS`` yardsticks of its size, whatever the other calls took: a bound no other reading
   moves. In yardsticks of their own size, which grow linearly too, quadratic forms take twice at 16384 tokens what
   they take at 8192 and linear ones the same; the test gives that call inputs of its own, with more features and
   fewer value columns, which quadratic forms pay for per pair of tokens and linear ones per token (problem 5: fair
   variants at most 11.2 yardsticks, quadratic forms at least 86). Problem 6 makes no such call (no
   ``capped_inputs``): with two feature columns its quadratic numpy blocks cost less at 16384 tokens than its fair
   per-token loop, so no cap tells them apart there (docs/threat_model.md).

Measured for problem 6 (causal_linear_attention; in-process, one thread): the reference, the fair variants and the
N x N form grow 3.99 to 4.02 times in work for 4 times the tokens, a loop that re-sums all earlier keys for every query
15.8 times. In the sandbox (``bench/bench_scaling_cpu.py``, 10 runs each, a yardstick of 0.010 to 0.012 s): every fair
variant of problems 5 and 6 took at most 7.8 yardsticks more at 8192 tokens than at 256 (0.02 to 0.10 s), except the
per-token loop (16 yardsticks, 0.23 s), whose growth is 1.4. The quadratic forms that torch's count cannot see took at
least 28 yardsticks more (0.32 to 0.83 s) and grew at least 38 times as much from 256 to 8192 tokens as from 256 to
1024: numpy blocks of queries against all keys (0.009 s -> 0.016 s -> 0.53 s), torch blocks under popped dispatch
modes, and quadratic work in a forked process (0.016 s -> 0.024 s -> 0.45 s: 19 times from 1024 tokens alone, where
the fork's fixed cost hides it). The loop that re-sums all earlier keys (4.5 times, its counted calls being slow) fails
by its work, the N x N forms by the memory cap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .calibration import linear_attention_seconds
from .calls import Call
from .checks import expect_true, fail, size_in_bytes

WORK_SIZES = (256, 1024)
LONG_N, LONG_MEMORY_MB = 8192, 256
# 4 times the tokens may cost at most 8 times the work (N^1.5). Below WORK_FLOOR elements per token torch did almost
# nothing (numpy code): then only the CPU time can tell.
WORK_GROWTH_LIMIT, WORK_FLOOR = 8.0, 100
# The CPU time's growth from WORK_SIZES[0] to LONG_N may be at most this many times its growth from WORK_SIZES[0] to
# WORK_SIZES[1] (linear: 10.3, N^1.5: 25.7, N^2: 68), unless the call at LONG_N took at most CPU_FLOOR_LINEAR_FORMS
# yardsticks more than the one at WORK_SIZES[0], too little to time (a yardstick: what causal linear attention over
# LONG_N tokens takes on this machine, testkit/calibration.py). Measured in yardsticks: every fair variant at most 7.8
# (the fast ones, whose growth is timer noise), every quadratic form at least 28.
CPU_GROWTH_LIMIT, CPU_FLOOR_LINEAR_FORMS = 8**1.5, 15
# A submission can add CPU time to any call, never take it away: CPU spent only in the smaller calls raises what the
# long one is compared with (50 ms at 1024 tokens passed quadratic work). So a last call, at CAPPED_N tokens in a
# fresh process, must take at most CPU_CAP_YARDSTICKS yardsticks of CAPPED_N tokens, whatever the other calls took.
# Measured at 16384 tokens on problem 5's capped inputs (128 features, 2 value columns; bench/bench_scaling_cpu.py,
# 3 runs): every fair variant at most 11.2, the quadratic forms at least 86 (numpy blocks; torch blocks under popped
# modes 160). On problem 6's inputs its fair per-token loop took 20.6 and its quadratic numpy blocks less (see below).
CAPPED_N, CPU_CAP_YARDSTICKS = 16384, 40
# The capped call judges CPU time; its memory room only refuses an N x N float64 matrix (2 GiB at CAPPED_N). It is the
# first call of a fresh process, so the threads a module starts there (torch.set_num_threads(16): 8 MiB of stack each)
# are reserved inside it: 256 MiB refused linear code that used 16 threads.
CAPPED_MEMORY_MB = 1024


def expect_linear_in_tokens(
    function: Any, inputs: Callable[[int], tuple], never: str, instead: str, long: bool = True,
    capped_inputs: Callable[[int], tuple] | None = None,
) -> None:
    """Fail unless ``function(*inputs(n))`` costs time and memory linear in ``n``, then compare its value at ``LONG_N``
    tokens with the reference's. ``never``: what a linear form never does ("sum over all earlier keys for every query");
    ``instead``: what it does ("carry the running sums S_i and Z_i from one token to the next"). ``long=False`` (a
    public test, at a modest size): torch's work from ``WORK_SIZES[0]`` to ``WORK_SIZES[1]`` tokens only, and the value
    at ``WORK_SIZES[1]``; the memory cap and the CPU time at ``LONG_N`` are left to a hidden test. ``capped_inputs``:
    the inputs of a last call at ``CAPPED_N`` tokens, whose CPU time is capped (shapes that make quadratic forms pay
    much more there than linear ones); without them, no such call (where no cap tells the problem's quadratic forms from
    its fair slow ones)."""
    sizes = (*WORK_SIZES, LONG_N) if long else WORK_SIZES
    # Measured before the first call, while none of the student's code runs (once per process).
    floor = CPU_FLOOR_LINEAR_FORMS * linear_attention_seconds(LONG_N) if long else 0.0
    cap = CPU_CAP_YARDSTICKS * linear_attention_seconds(CAPPED_N) if long and capped_inputs else 0.0
    sized = {n: Call(function, *inputs(n)) for n in sizes}
    last = sizes[-1]
    name = sized[last].func
    small, large = WORK_SIZES
    # The call at WORK_SIZES[1] is read twice, after the long one too, and the lesser CPU time kept: a burst of load
    # only adds CPU time, and one there makes quadratic work look linear (it raises what the long call is compared
    # with). Read again, it is counted the same way, and a second call that costs less only makes the check stricter.
    readings = [*sized.items(), *([(large, Call(function, *inputs(large)))] if long else [])]
    costs: dict[int, dict] = {}
    for n, call in readings:
        cost = _cost(call, n, name, never)
        if cost is None:
            return
        if n in costs:  # the second reading: only its CPU time counts
            cost = {**costs[n], "cpu_seconds": min(cost["cpu_seconds"], costs[n]["cpu_seconds"])}
        costs[n] = cost
    growth = costs[large]["work"] / max(costs[small]["work"], 1)
    linear = True  # so far: the capped call is made only while nothing else has failed (failing code pays no more)
    if costs[large]["work"] > WORK_FLOOR * large:
        linear = growth <= WORK_GROWTH_LIMIT
        expect_true(
            linear,
            f"with {large // small} times the tokens ({small} -> {large}), {name} did {growth:.1f} times the work in "
            f"torch (elements computed and multiply-accumulates: {costs[small]['work']:,} -> "
            f"{costs[large]['work']:,}); "
            f"time linear in N allows about {large // small} (accepted up to {WORK_GROWTH_LIMIT:g}): it may not "
            f"{never}; "
            f"{instead}.",
            called=sized[large].shown,
        )
    # The long call read again when its CPU time fails the check: a burst of load there (a page fault meeting
    # reclaim, a cache shared with a busy neighbour) only adds CPU time, so the lesser reading is kept. In a fresh
    # process of the module, as a new test's first call: nothing the first reading computed or kept (its answer, or
    # answers to inputs it could foresee) reaches the second.
    again = None
    if long:
        cpu = {n: costs[n]["cpu_seconds"] for n in sized}
        if cpu_growth(cpu, floor) > CPU_GROWTH_LIMIT:
            reading = _read_in_fresh_process(function, inputs, LONG_N, name, never)
            if reading is None:
                return
            seconds, again = reading
            cpu[LONG_N] = min(cpu[LONG_N], seconds)
        linear = linear and cpu_growth(cpu, floor) <= CPU_GROWTH_LIMIT
        expect_cpu_time_linear(name, cpu, floor, never, instead, sized[LONG_N].shown, read_twice=again is not None)
    # No mistake's output is recorded for inputs this large (hints compare values); the messages above say enough.
    sized[last].matches(sized[last].reference(), hints=False)
    if again is not None:
        again.matches(again.reference(), hints=False)
    if long and capped_inputs is not None and linear:
        expect_cpu_time_capped(function, capped_inputs, name, cap, never, instead)


def expect_cpu_time_capped(function: Any, inputs: Callable[[int], tuple], name: str, cap: float, never: str,
                           instead: str) -> None:
    """Fail unless ``function(*inputs(CAPPED_N))``, in a fresh process (nothing an earlier call computed reaches it),
    takes at most ``cap`` CPU seconds (read again, in another fresh process, when it takes more: a burst of load only
    adds CPU time), then compare its value with the reference's."""
    readings = []
    for _ in range(2):
        reading = _read_in_fresh_process(function, inputs, CAPPED_N, name, never)
        if reading is None:
            return
        readings.append(reading)
        if reading[0] <= cap:
            break
    seconds, call = min(readings, key=lambda reading: reading[0])
    lesser = f" (the lesser of {len(readings)} calls, each in a fresh process)" if len(readings) > 1 else ""
    expect_true(
        seconds <= cap,
        f"{name} took {seconds:.2f} s of CPU for {CAPPED_N} tokens{lesser}, counting every thread and process it ran: "
        f"{seconds / cap * CPU_CAP_YARDSTICKS:.0f} times what linear attention over {CAPPED_N} tokens takes on this "
        f"machine, where time linear in N is accepted up to {CPU_CAP_YARDSTICKS} times ({cap:.2f} s), whatever the "
        f"smaller calls took: it may not {never}; {instead}.",
        called=call.shown,
    )
    for _, made in readings:
        made.matches(made.reference(), hints=False)


def _read_in_fresh_process(function: Any, inputs: Callable[[int], tuple], n: int, name: str,
                           never: str) -> tuple[float, Call] | None:
    """(CPU seconds, the call) of ``function(*inputs(n))`` run in a fresh process of the module, or None once a failure
    says why there is none."""
    call = Call(function, *inputs(n))
    cost = _cost(call, n, name, never, fresh=True)
    return None if cost is None else (cost["cpu_seconds"], call)


def memory_room_mb(n: int) -> int | None:
    """The address space a call at ``n`` tokens may add (None: no cap below ``LONG_N``)."""
    return CAPPED_MEMORY_MB if n >= CAPPED_N else LONG_MEMORY_MB if n >= LONG_N else None


def _cost(call: Call, n: int, name: str, never: str, fresh: bool = False) -> dict | None:
    """``call``'s cost at ``n`` tokens (the long call under the memory cap), or None once a failure says why there is
    none."""
    room_mb = memory_room_mb(n)
    try:
        return call.cost(work=n in WORK_SIZES, memory_mb=room_mb, fresh=fresh)
    except AssertionError as exc:
        room = f", more than the {room_mb} MiB this call may use" if room_mb else ""
        fail(
            f"{exc}\nWith N = {n} tokens, {name} must use time and memory linear in N: it may never build an N x N "
            f"matrix (an N x N float64 matrix would need {size_in_bytes(n * n * 8)} here{room}), nor {never}."
        )
        return None


def cpu_growth(cpu: dict[int, float], floor: float) -> float:
    """What the CPU seconds ``cpu`` grew from ``WORK_SIZES[0]`` to ``LONG_N`` tokens against what they grew from
    ``WORK_SIZES[0]`` to ``WORK_SIZES[1]``. A growth to ``WORK_SIZES[1]`` below ``floor / CPU_GROWTH_LIMIT`` counts as
    that much: the long call then passes whenever it took at most ``floor`` more than the small one."""
    small, large = WORK_SIZES
    return (cpu[LONG_N] - cpu[small]) / max(cpu[large] - cpu[small], floor / CPU_GROWTH_LIMIT)


def expect_cpu_time_linear(name: str, cpu: dict[int, float], floor: float, never: str, instead: str,
                           called: str, read_twice: bool = False) -> None:
    """Fail unless the CPU seconds ``cpu`` of the calls at ``WORK_SIZES`` and ``LONG_N`` tokens grow linearly, or the
    call at ``LONG_N`` took at most ``floor`` seconds more than the one at ``WORK_SIZES[0]`` (too little to time).

    Every figure compared is a ratio of CPU times measured on one machine, the floor's yardstick included: a machine
    some times faster gives the same verdict. ``read_twice``: the time at ``LONG_N`` is the lesser of two calls."""
    small, large = WORK_SIZES
    growth = cpu_growth(cpu, floor)
    lesser = f", the lesser of two calls at {LONG_N} tokens, the second in a fresh process" if read_twice else ""
    expect_true(
        growth <= CPU_GROWTH_LIMIT,
        f"{name}'s CPU time grew {growth:.1f} times as much from {small} to {LONG_N} tokens as from {small} to "
        f"{large} ({cpu[small]:.3f} s -> {cpu[large]:.3f} s -> {cpu[LONG_N]:.2f} s{lesser}, counting every thread "
        f"and process it ran); time linear in N allows about {(LONG_N - small) / (large - small):.0f} (accepted up to "
        f"{CPU_GROWTH_LIMIT:.0f}, or any growth when the call at {LONG_N} tokens takes at most {floor:.2f} s more than "
        f"the one at {small}: {CPU_FLOOR_LINEAR_FORMS} times what linear attention over {LONG_N} tokens takes on this "
        f"machine): it may not {never}; {instead}.",
        called=called,
    )
