"""The time rules: a stopped function is not called again, the deadline refuses calls, the worst case fits the timeout."""

import dataclasses
import time

import pytest

from autograder import settings
from autograder.grading import grader, time_rules
from autograder.grading.observers import Observer
from autograder.model import manifest, paths
from autograder.sandbox.errors import StudentCallError
from autograder.sandbox.exchange import Exchange
from tests.helpers import reference_submission


class FakeSession:
    """Answers calls from a script: a value to return, or a StudentCallError kind to raise (or ``(kind, seconds it
    waited for a CPU)``); each step may first record the exchanges the call cost (``(op, seconds, stopped[, waited])``)."""

    def __init__(self, script, costs=None):
        self.script, self.calls, self.exchanges, self.backstops = list(script), [], [], []
        self.costs = list(costs or [])

    def call(self, module, func, args, kwargs, seconds, shown, backstop=None):
        self.calls.append(func)
        self.backstops.append(backstop)
        for op, spent, stopped, *waited in self.costs.pop(0) if self.costs else []:
            self.exchanges.append(Exchange(module, op, func if op == "call" else "", spent, seconds, stopped, *waited))
        step = self.script.pop(0)
        if isinstance(step, str):
            raise StudentCallError(f"{shown} failed", step)
        if isinstance(step, tuple):
            raise StudentCallError(f"{shown} failed", step[0], waited=step[1])
        return step


def run(guard, session, func, module="m"):
    return guard.call(session, module, module, func, (), {}, 5.0, f"{module}.{func}()")


def test_a_function_stopped_once_is_not_called_again_but_the_others_are():
    session, guard = FakeSession(["timeout", 42]), time_rules.CallGuard()
    with pytest.raises(StudentCallError):
        run(guard, session, "softmax")
    with pytest.raises(StudentCallError) as err:
        run(guard, session, "softmax")
    assert err.value.kind == "skipped" and "ran past its limit of 5 s" in str(err.value)
    assert run(guard, session, "qkv") == 42
    assert session.calls == ["softmax", "qkv"]


def test_a_call_stopped_while_it_waited_for_a_cpu_is_the_machine_s_fault_and_so_is_not_calling_it_again():
    # Limit 5 s: 4 s of it waiting for a CPU is past STARVED_SHARE (it ran on less than a quarter of one).
    session, guard = FakeSession([("timeout", 4.0)]), time_rules.CallGuard()
    with pytest.raises(StudentCallError) as err:
        run(guard, session, "softmax")
    text = str(err.value)
    assert err.value.kind == "busy" and text.startswith("m.softmax() failed") and "4.0 s waiting for a CPU" in text
    assert "not of your code" in text
    with pytest.raises(StudentCallError) as again:
        run(guard, session, "softmax")
    assert again.value.kind == "busy_not_run" and "too busy" in str(again.value) and session.calls == ["softmax"]


def test_a_call_stopped_while_it_ran_is_its_own_fault_however_loaded_the_rest_of_the_time():
    session, guard = FakeSession([("timeout", 3.7)]), time_rules.CallGuard()  # just under 0.75 of 5 s
    with pytest.raises(StudentCallError) as err:
        run(guard, session, "softmax")
    assert err.value.kind == "timeout" and "too busy" not in str(err.value)
    assert time_rules.starved(3.75, 5.0) and not time_rules.starved(3.74, 5.0) and not time_rules.starved(0.0, 0.0)


@pytest.mark.parametrize(("waited", "kind"), [(1.0, "budget"), (12.0, "busy_not_run")])
def test_a_budget_used_up_waiting_for_a_cpu_is_the_machine_s_fault(waited, kind):
    # Budget 12 s: three calls of 5 s (15 s charged), of which each waited ``waited`` / 3 for a CPU.
    session = FakeSession([1, 2, 3], costs=[[("call", 5.0, False, waited / 3)]] * 3)
    guard = time_rules.CallGuard()
    guard.set_budget("m", 12.0)
    assert [run(guard, session, "f") for _ in range(3)] == [1, 2, 3]
    with pytest.raises(StudentCallError) as err:
        run(guard, session, "g")
    assert err.value.kind == kind and "used up their time budget of 12 s" in str(err.value)
    assert ("not of your code" in str(err.value)) == (kind == "busy_not_run")


def test_a_call_that_raises_or_crashes_is_called_again():
    session, guard = FakeSession(["raised", "crash", 7]), time_rules.CallGuard()
    for _ in range(2):
        with pytest.raises(StudentCallError):
            run(guard, session, "f")
    assert run(guard, session, "f") == 7


def test_past_the_deadline_no_call_runs_and_the_student_is_told_it_is_not_their_fault():
    session, guard = FakeSession([1]), time_rules.CallGuard(deadline=time.monotonic() - 1)
    with pytest.raises(StudentCallError) as err:
        run(guard, session, "f")
    assert err.value.kind == "deadline" and "not of your code" in str(err.value) and session.calls == []


def test_a_spent_budget_refuses_the_module_s_next_calls_and_a_stopped_call_counts_its_full_limit():
    # Limit 5 s, budget 12 s: a call stopped after 1 s (a crash) counts 5 s; two fast calls 2 s each; then 9 s spent.
    session = FakeSession(["crash", 1, 2, 3, 4], costs=[[("import", 1.0, False), ("call", 1.0, True)], [("call", 2.0, False)],
                                                          [("call", 2.0, False)], [("call", 4.0, False)]])
    guard = time_rules.CallGuard()
    guard.set_budget("m", 12.0)
    with pytest.raises(StudentCallError):
        run(guard, session, "f")
    assert guard.spent["m"] == 6.0
    assert [run(guard, session, "f") for _ in range(3)] == [1, 2, 3]  # 6 + 2 + 2 + 4 = 14 s spent, over the budget
    with pytest.raises(StudentCallError) as err:
        run(guard, session, "g")
    assert err.value.kind == "budget" and "used up their time budget of 12 s" in str(err.value) and session.calls == ["f"] * 4


def test_a_stopped_call_s_unused_limit_pays_for_the_re_import_after_it():
    session = FakeSession(["crash", 1], costs=[[("call", 1.0, True)], [("import", 3.0, False), ("call", 0.5, False)]])
    guard = time_rules.CallGuard()
    with pytest.raises(StudentCallError):
        run(guard, session, "f")
    assert run(guard, session, "f") == 1
    assert guard.spent["m"] == 5.0 + (3.0 - 3.0) + 0.5  # the crash left 4 s of its limit: the 3 s re-import is paid for


def test_a_stopped_call_counts_its_limit_not_the_time_the_grader_took_to_stop_it():
    session = FakeSession(["timeout"], costs=[[("call", 19.0, True)]])  # a loaded machine: 14 s to interrupt and clean up
    guard = time_rules.CallGuard()
    with pytest.raises(StudentCallError):
        run(guard, session, "f")
    assert guard.spent["m"] == 5.0


def test_the_kinds_of_stopped_and_refused_calls_are_reported():
    told = []

    class Told(Observer):
        def call_refused(self, kind: str) -> None:
            told.append(kind)

    session, guard = FakeSession(["timeout", "raised"]), time_rules.CallGuard(observer=Told())
    for func in ("f", "f", "g"):
        with pytest.raises(StudentCallError):
            run(guard, session, func)
    assert told == ["timeout", "skipped"]  # a call that raised is the student's answer, not a refusal


def test_the_deadline_is_inherited_through_the_environment(assignment, monkeypatch):
    monkeypatch.delenv(time_rules.DEADLINE_ENV, raising=False)
    assert time_rules.inherited_deadline() is None
    time_rules.start_clock(assignment.gradescope)
    left = time_rules.inherited_deadline() - time.monotonic()
    expected = time_rules.DEADLINE_FRACTION * assignment.gradescope.timeout_minutes * 60
    assert expected - 5 < left <= expected


def test_the_stated_worst_case_never_reaches_the_deadline(assignment):
    # A configuration check, not a timing: call limits, budgets and restarts whose worst case, with a
    # minute for the grader's own work, could reach the deadline (80% of Gradescope's timeout) fail here.
    deadline = time_rules.DEADLINE_FRACTION * assignment.gradescope.timeout_minutes * 60
    assert time_rules.time_bound(assignment) + time_rules.GRADER_SECONDS <= deadline == time_rules.deadline_seconds(assignment)
    assert time_rules.bound_problem(assignment) is None, time_rules.bound_problem(assignment)


def test_a_problem_that_breaks_the_bound_is_told_which_limits_to_change(assignment):
    extra = dataclasses.replace(assignment.problems[0], module="multi_query", limits=manifest.Limits(call_seconds=12))
    more = dataclasses.replace(assignment, problems=(*assignment.problems, extra))
    over = time_rules.time_bound(more) + time_rules.GRADER_SECONDS - time_rules.deadline_seconds(more)
    assert over > 0
    text = time_rules.bound_problem(more)
    assert f"by {over:g} s" in text and "multi_query 12 s -> " in text
    cut = float(text.split("take ")[1].split(" s off")[0])
    fitted = dataclasses.replace(extra, limits=manifest.Limits(call_seconds=12 - cut))
    assert time_rules.bound_problem(dataclasses.replace(more, problems=(*assignment.problems, fitted))) is None
    minutes = int(text.split("gradescope.timeout_minutes in assignment.yaml to ")[1].split()[0])
    longer = dataclasses.replace(more.gradescope, timeout_minutes=minutes)
    assert time_rules.bound_problem(dataclasses.replace(more, gradescope=longer)) is None


def test_a_problem_s_worst_case_counts_one_worker_restart_per_limit_its_budget_holds(assignment):
    # Each exchange that loses the worker is charged the full limit, and all but the last precede an admitted call.
    problem = assignment.problem("qkv_arithmetic")
    seconds = problem.limits.call_seconds
    restarts = (time_rules.problem_bound(problem, restart_seconds=1.0) - time_rules.problem_bound(problem, restart_seconds=0.0))
    assert restarts == time_rules.BUDGET_FACTOR
    assert time_rules.problem_bound(problem, restart_seconds=0.0) == time_rules.problem_budget(problem) + seconds


def test_a_seventh_problem_of_today_s_size_fits_at_the_default_call_limit(assignment):
    defaults = [p.limits.call_seconds for p in assignment.problems]
    assert time_rules.room_for_a_problem(assignment) >= min(defaults) == 5


def test_room_for_a_problem_is_the_largest_call_limit_that_still_fits(assignment):
    room = time_rules.room_for_a_problem(assignment)
    if room <= 0:
        pytest.skip("the assignment leaves no room for another problem")  # the test above covers what it says then
    for seconds, fits in ((room, True), (room + 0.5, False)):
        extra = dataclasses.replace(assignment.problems[0], module="multi_query", limits=manifest.Limits(call_seconds=seconds))
        assert (time_rules.bound_problem(dataclasses.replace(assignment, problems=(*assignment.problems, extra))) is None) == fits


def test_a_hanging_function_costs_one_limit_and_the_rest_of_the_problem_still_runs(assignment, tmp_path):
    problem = assignment.problem("qkv_arithmetic")
    quick = dataclasses.replace(problem, limits=dataclasses.replace(problem.limits, call_seconds=1.5))
    source = (paths.REFERENCE / "qkv_arithmetic.py").read_text() + "\n\ndef softmax_attention(*a, **k):\n    while True:\n        pass\n"
    sub = reference_submission(tmp_path / "sub", replace={"qkv_arithmetic": source})
    (result,) = grader.grade(sub, dataclasses.replace(assignment, problems=(quick,)), grader.Purpose.GRADING).problems
    messages = [t.message for t in result.tests if not t.passed]
    stopped = [m for m in messages if "did not finish within the time limit of 1.5 s" in m]
    skipped = [m for m in messages if "softmax_attention is not called again" in m]
    assert len(stopped) == 1 and skipped, messages
    assert any(t.passed for t in result.tests)  # the other functions of the problem were still graded


OWN_BUSY_PROCESSES = """

def softmax_attention(*args, **kwargs):
    import os
    os.nice(19)
    for _ in range(6):  # busy processes of its own: its main thread waits much of the time
        if os.fork() == 0:
            while True:
                pass
    while True:
        pass
"""

PINNED_LOW = """

def softmax_attention(*args, **kwargs):
    import os
    os.sched_setaffinity(0, {CPU})
    os.nice(19)  # beside the test's busy processes on that CPU: it gets almost none of it, as on a crowded machine
    while True:
        pass
"""


def _quick_grade(assignment, tmp_path, code, purpose=grader.Purpose.GRADING):
    problem = assignment.problem("qkv_arithmetic")
    quick = dataclasses.replace(problem, limits=dataclasses.replace(problem.limits, call_seconds=1.5))
    sub = reference_submission(tmp_path / "sub", replace={"qkv_arithmetic": (paths.REFERENCE / "qkv_arithmetic.py").read_text() + code})
    (result,) = grader.grade(sub, dataclasses.replace(assignment, problems=(quick,)), purpose).problems
    return result


def test_busy_processes_of_the_call_s_own_spend_its_cpu_limit_and_are_never_the_grader_s_fault(assignment, tmp_path):
    # Its processes share what the kernel gives its session (one group of the scheduler): on a machine that gives that
    # group a quarter of a CPU or more (any machine not overloaded several times over), they use up its CPU limit.
    result = _quick_grade(assignment, tmp_path, OWN_BUSY_PROCESSES)
    kinds = {t.failure for t in result.tests if not t.passed}
    assert "timeout" in kinds and not kinds & {"busy", "busy_not_run"}, [t.message for t in result.tests]
    assert any("used 0.75 s of CPU time" in t.message for t in result.tests if t.failure == "timeout")
    assert any(t.passed for t in result.tests)


@pytest.fixture
def crowded_cpu():
    """Busy processes of the test's own (outside any sandbox) on one CPU, each in a session of its own (the kernel shares
    a CPU between sessions first, so the worker's session gets a seventh of it); yields that CPU."""
    import os
    import subprocess
    import sys

    cpu = min(os.sched_getaffinity(0))
    busy = [subprocess.Popen([sys.executable, "-c", f"import os; os.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass"],
                             start_new_session=True) for _ in range(6)]
    try:
        yield cpu
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize(("purpose", "says"), [(grader.Purpose.GRADING, "not of your code: ask the course staff"),
                                               (grader.Purpose.SELF_CHECK, "Your computer was too busy")])
def test_a_call_starved_of_cpu_by_other_programs_is_the_machine_s_fault_through_the_real_sandbox(assignment, tmp_path, crowded_cpu,
                                                                                                  purpose, says):
    result = _quick_grade(assignment, tmp_path, PINNED_LOW.replace("CPU", str(crowded_cpu)), purpose)
    busy = [t for t in result.tests if t.failure in ("busy", "busy_not_run")]
    assert busy and all("too busy to time" in t.message and says in t.message for t in busy), [t.message for t in result.tests]
    if purpose is grader.Purpose.SELF_CHECK:
        assert not any("course staff" in t.message for t in result.tests)
    assert any(t.failure == "busy" and "did not finish within the time limit of 1.5 s" in t.message for t in busy)
    assert not [t for t in result.tests if t.failure in ("timeout", "skipped")]  # none of it is put down to the code
    assert not any(t.passed for t in busy) and any(t.passed for t in result.tests)  # no point for it; the rest still graded


def test_a_reset_between_calls_that_replaced_the_worker_is_charged_before_the_next_call():
    """A reset is no call of the guard's: what it cost (here, a worker replaced after a test stopped it) is charged when
    the next call comes, and counts against the budget that call must fit in."""
    session, guard = FakeSession([1, 2]), time_rules.CallGuard()
    guard.set_budget("m", 8.0)
    assert run(guard, session, "f") == 1
    session.exchanges.append(Exchange("m", "reset", "", 3.0, 5.0, True))  # between tests, outside any call
    assert run(guard, session, "f") == 2
    assert guard.spent["m"] == 5.0
    session.exchanges.append(Exchange("m", "reset", "", 3.0, 5.0, True))
    with pytest.raises(StudentCallError, match="used up their time budget of 8 s"):
        run(guard, session, "f")


def test_a_call_is_charged_its_cpu_time_at_gradescope_s_share_or_the_wall_clock_it_did_not_wait_whichever_is_more():
    assert settings.CPU_SHARE == manifest.load().gradescope.cpus  # the limits are measured at Gradescope's allocation
    busy = Exchange("m", "call", "f", 1.0, 5.0, False, 0.1, cpu=0.9)  # a busy call on a whole CPU: as at half of one
    starved = Exchange("m", "call", "f", 4.0, 5.0, False, 3.8, cpu=0.2)  # waiting for a CPU: the load is not charged
    asleep = Exchange("m", "call", "f", 2.0, 5.0, False, 0.0, cpu=0.0)
    unknown = Exchange("m", "call", "f", 2.0, 5.0, False, 1.5)  # the portable path: its wall clock
    stopped = Exchange("m", "call", "f", 6.25, 5.0, True, 0.0, cpu=0.1)  # stopped asleep at the backstop
    slow_stop = Exchange("m", "call", "f", 19.0, 5.0, True, 0.0, cpu=0.1)  # past its 10 s backstop: the grader's time
    at_cpu_limit = Exchange("m", "call", "f", 2.6, 5.0, True, 0.0, cpu=2.5)
    charges = [time_rules.charged(e) for e in (busy, starved, asleep, unknown, stopped, slow_stop, at_cpu_limit)]
    assert charges == pytest.approx([1.8, 0.4, 2.0, 2.0, 6.25, 10.0, 5.0])


def test_the_last_call_s_wall_clock_reaches_past_its_module_s_budget_by_at_most_its_limit():
    session = FakeSession([1, 2, 3], costs=[[("call", 4.0, False)], [("call", 4.0, False)], []])
    guard = time_rules.CallGuard()
    guard.set_budget("m", 10.0)
    assert [run(guard, session, "f") for _ in range(3)] == [1, 2, 3]
    # 10 s left (2 x 5 s: the session's own backstop), then 6 s, then 2 s: the call may take its 5 s limit.
    assert session.backstops == [None, 6.0, 5.0]
