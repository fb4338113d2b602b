"""The worker session: a module's process that ends during a call costs that call, not the worker; a stopped call says how
long it waited for a CPU."""

import json
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from autograder.model import paths
from autograder.sandbox import errors, policy
from autograder.sandbox.session import WorkerSession

CRASHING = b'''
import os, signal

def ends(how):
    if how == "abort":
        os.abort()
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    os._exit(3)

def fine(x):
    return x + 1

class OddDimension(ValueError):
    pass

class Lookalike(Exception):
    __module__ = "builtins"

Lookalike.__name__ = "ValueError"

def raises(which):
    raise OddDimension("odd") if which == "subclass" else Lookalike("odd")

def leave_group():
    """Move this process into a group a child of it made, then return: its own pid then names no group."""
    import time
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setpgid(0, 0)
        os.write(write, b"x")
        time.sleep(600)
        os._exit(0)
    os.read(read, 1)
    os.setpgid(0, pid)
    return os.getpgid(0) == pid

def chmod_box():
    """Try to make the box's submissions folder (two levels above this module) unreadable; say what stopped it."""
    try:
        os.chmod(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 0)
    except OSError as exc:
        return f"refused: {exc.strerror}"
    return "changed"

def mark_scratch(mark):
    """Leave ``mark`` on the scratch folder itself (its times, a user.* attribute, a file made in it): what an earlier
    test left, what this one could leave."""
    folder = os.environ.get("TMPDIR") or "/tmp"
    found, left = [os.stat(folder).st_mtime_ns], []
    try:
        found.append(os.getxattr(folder, "user.mark").decode())
    except OSError:
        found.append(None)
    for what, leave in (("file", lambda: open(os.path.join(folder, "m"), "w").close()),
                        ("times", lambda: os.utime(folder, ns=(mark, mark))),
                        ("attribute", lambda: os.setxattr(folder, "user.mark", str(mark).encode()))):
        try:
            leave()
            left.append(what)
        except OSError:
            pass
    return found, left

def garbles():
    """Write something of its own on the pipe it replies on (every pipe it may write but its output)."""
    import stat
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode) \\
                    and open(f"/proc/self/fdinfo/{fd}").read().split("flags:")[1].split()[0][-1] in "12":
                os.write(fd, b"\\xff" * 64)
        except OSError:
            continue
    return 0

def slow(seconds):
    import time
    time.sleep(seconds)
    return 0

def _crowd(hogs):
    """With ``hogs``: run on one CPU shared with that many busy processes of our own (they starve us); their pids. All at
    the lowest priority, so that the rest of the machine (the suite's other tests) hardly notices them."""
    if hogs:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        os.nice(19)
    pids = []
    for _ in range(hogs):
        pid = os.fork()
        if pid == 0:
            while True:
                pass
        pids.append(pid)
    return pids

def spin(hogs):
    """Run until stopped, crowded by ``hogs``."""
    _crowd(hogs)
    while True:
        pass

def work(cpu_seconds, hogs):
    """Use ``cpu_seconds`` of CPU crowded by ``hogs`` (ended before it returns)."""
    import time
    pids = _crowd(hogs)
    start = time.process_time()
    while time.process_time() - start < cpu_seconds:
        pass
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return 0
'''

SURROGATE = b'''
print("\\x1b[2J")
raise ValueError("\\udc80 and \\x07")
'''


@pytest.fixture(scope="module")
def session():
    if policy.portable_reason():
        pytest.skip(f"the worker cannot run here: {policy.portable_reason()}")
    session = WorkerSession(memory_mb=2000, start_now=True)
    session.switch(session.stage({"crashing": CRASHING, "surrogate": SURROGATE}))
    yield session
    session.close()


@pytest.mark.parametrize(("how", "says"), [("abort", "killed by signal SIGABRT"), ("kill", "killed by signal SIGKILL"),
                                           ("exit", "exited with status 3")])
def test_a_module_process_that_ends_costs_its_call_and_keeps_the_worker(session, how, says):
    session.call("crashing", "fine", (0,), {}, 10, "crashing.fine(0)")
    pid = session._worker.host_pid
    with pytest.raises(errors.StudentCallError) as raised:
        session.call("crashing", "ends", (how,), {}, 10, f"crashing.ends({how!r})")
    assert raised.value.kind == errors.CRASH and says in str(raised.value), str(raised.value)
    ended = session.exchanges[-1]
    assert (ended.op, ended.stopped) == ("call", False) and ended.seconds < ended.limit
    assert session._worker.host_pid == pid and session.restarts == 0  # the same first process, not a new worker
    assert session.call("crashing", "fine", (1,), {}, 10, "crashing.fine(1)") == 2  # a fresh process for the module


def test_an_exception_reaches_the_grader_with_the_built_in_classes_it_is_an_instance_of(session):
    # Through the worker's first process, which passes on only what it knows of a reply.
    with pytest.raises(errors.StudentCallError) as subclass:
        session.call("crashing", "raises", ("subclass",), {}, 10, "crashing.raises('subclass')")
    assert subclass.value.raised == "OddDimension" and subclass.value.raised_a("ValueError")
    with pytest.raises(errors.StudentCallError) as lookalike:
        session.call("crashing", "raises", ("lookalike",), {}, 10, "crashing.raises('lookalike')")
    assert lookalike.value.raised == "ValueError" and not lookalike.value.raised_a("ValueError")
    assert lookalike.value.raised_as == ("Exception", "BaseException")


def test_a_module_process_that_left_its_group_is_still_ended_at_once(session):
    # Its group held neither it nor its pid: killing the group found no one, and the reset waited for it until the
    # grader gave the worker up (every test of the module then cost a worker's start and RESET_SECONDS of wall).
    assert session.call("crashing", "leave_group", (), {}, 10, "crashing.leave_group()") is True
    restarts = session.restarts
    session.fresh("crashing")
    assert session.call("crashing", "fine", (1,), {}, 10, "crashing.fine(1)") == 2
    assert session.restarts == restarts


def test_the_worker_itself_ending_during_a_call_is_still_a_crash(session):
    session.call("crashing", "fine", (1,), {}, 10, "crashing.fine(1)")
    pid, restarts = session._worker.host_pid, session.restarts
    threading.Timer(1.0, os.kill, (pid, signal.SIGKILL)).start()  # the first process dies while the call sleeps
    with pytest.raises(errors.StudentCallError) as raised:
        session.call("crashing", "slow", (5,), {}, 10, "crashing.slow(5)")
    assert raised.value.kind == errors.CRASH and "killed by signal SIGKILL" in str(raised.value), str(raised.value)
    assert session.exchanges[-1].stopped  # a whole worker lost: the full limit, which pays for the restart
    assert session.call("crashing", "fine", (3,), {}, 10, "crashing.fine(3)") == 4 and session.restarts == restarts + 1


@pytest.mark.parametrize("how", ["timeout", "crash", "unreadable"])
def test_what_the_grader_finds_left_after_a_call_ends_costs_the_worker(session, monkeypatch, how):
    # After a call stopped at its limit, a module process that ended on its own, or one the worker ended because it wrote
    # on the reply pipe, the worker says it ended the module; the grader does not take its word: its own check (as after
    # a reset) finds something left, so the worker goes.
    session.call("crashing", "fine", (1,), {}, 10, "crashing.fine(1)")
    pid, restarts = session._worker.host_pid, session.restarts
    monkeypatch.setattr(type(session._worker), "unrestored", lambda self: "processes of the last test are still running")
    with pytest.raises(errors.StudentCallError) as raised:
        if how == "timeout":
            session.call("crashing", "slow", (30,), {}, 1, "crashing.slow(30)")
        elif how == "crash":
            session.call("crashing", "ends", ("exit",), {}, 10, "crashing.ends('exit')")
        else:
            session.call("crashing", "garbles", (), {}, 10, "crashing.garbles()")
    assert raised.value.kind == {"timeout": errors.TIMEOUT, "crash": errors.CRASH, "unreadable": errors.GARBAGE}[how], str(raised.value)
    assert session.exchanges[-1].stopped  # the full limit, which pays for the restart
    monkeypatch.undo()
    assert session.call("crashing", "fine", (3,), {}, 10, "crashing.fine(3)") == 4
    assert session.restarts == restarts + 1 and session._worker.host_pid != pid


def test_a_stopped_call_says_how_long_its_process_waited_for_a_cpu(session):
    # The first process reads it in /proc (schedstat), never from the module's process. Crowded by ten busy processes of
    # its own on its one CPU, its main thread runs for at most an eleventh of the time until it is stopped (their CPU
    # time spends its limit), however loaded the machine; asleep, it waits for none.
    for func, args in (("spin", (10,)), ("slow", (30,))):
        with pytest.raises(errors.StudentCallError) as raised:
            session.call("crashing", func, args, {}, 2, f"crashing.{func}{args}")
        assert raised.value.kind == errors.TIMEOUT, str(raised.value)
        waited = raised.value.waited
        assert session.exchanges[-1].stopped and session.exchanges[-1].waited == min(waited, session.exchanges[-1].seconds)
        assert waited >= 0.8 * raised.value.limit.wall if func == "spin" else waited < 0.5, (func, waited, raised.value.limit)


def test_an_answered_call_says_how_long_its_process_waited_for_a_cpu(session):
    # Ten busy processes on its one CPU: it waits for most of its time (not all: forking them, and waiting for each to
    # end, it is running or asleep).
    # A limit of 30 s: the busy processes' CPU time is the call's (3.3 s on an idle machine), and its 15 s of CPU time
    # leave room on a loaded one.
    assert session.call("crashing", "work", (0.3, 10), {}, 30, "crashing.work(0.3, 10)") == 0
    crowded = session.exchanges[-1]
    assert session.call("crashing", "slow", (0.5,), {}, 10, "crashing.slow(0.5)") == 0
    asleep = session.exchanges[-1]
    assert (crowded.op, crowded.stopped, asleep.stopped) == ("call", False, False)
    assert crowded.waited >= 0.5 * crowded.seconds and asleep.waited < 0.25, (crowded, asleep)


def test_what_a_module_sends_becomes_valid_text_before_any_writer_sees_it(session):
    # A message with a lone surrogate (a strict UTF-8 writer refuses it: grades.csv, the terminal) and control characters.
    with pytest.raises(errors.StudentCallError) as raised:
        session.import_module("surrogate", 10)
    message = str(raised.value)
    message.encode("utf-8")
    assert "ValueError: \\udc80 and \\x07" in message, message
    session.settle_output()
    assert "\\x1b[2J" in session.output.text() and "\x1b" not in session.output.text()


@pytest.fixture(scope="module")
def same_user(session):
    """A session whose student code runs as the grader's own user (as root, a self-check's: no uid of its own)."""
    if session.setup.identity is None:
        yield session
        return
    shared = WorkerSession(memory_mb=2000, start_now=True, self_check=True)
    shared.switch(shared.stage({"crashing": CRASHING}))
    yield shared
    shared.close()


def test_the_box_modes_are_put_back_after_a_reply_and_before_the_next_submission(same_user):
    # Student code running as the grader's own user may chmod the box's folders (000 of the submissions folder stops
    # every later submission from being staged); as root here, the test makes the change the module would make.
    session = same_user
    box = session.setup.box
    wanted = box.modes[box.submissions]
    session.call("crashing", "fine", (1,), {}, 10, "crashing.fine(1)")
    os.chmod(box.submissions, 0)
    assert session.call("crashing", "fine", (2,), {}, 10, "crashing.fine(2)") == 3
    assert stat.S_IMODE(os.stat(box.submissions).st_mode) == wanted  # put back after the reply
    os.chmod(box.submissions, 0)  # after the last reply (a thread of the module's process, say)
    staged = session.stage({"other": b"x = 1\n"})
    assert stat.S_IMODE(os.stat(box.submissions).st_mode) == wanted
    session.discard(staged)


def test_with_a_uid_of_its_own_no_mode_of_the_box_is_read_after_each_call(session):
    # Only a path's owner may chmod it: the box is root's, so the module cannot change a mode and the grader has none to
    # put back (nor to read after every call).
    if session.setup.identity is None:
        pytest.skip("the worker shares the grader's uid here")
    box = session.setup.box
    before = stat.S_IMODE(os.stat(box.submissions).st_mode)
    said = session.call("crashing", "chmod_box", (), {}, 10, "crashing.chmod_box()")
    assert said.startswith("refused"), said
    assert stat.S_IMODE(os.stat(box.submissions).st_mode) == before
    assert box.modes == {}


@pytest.fixture(scope="module")
def unwrapped():
    """A session without bubblewrap: the scratch folder is the sandbox user's own, which it may mark."""
    if policy.portable_reason():
        pytest.skip(f"the worker cannot run here: {policy.portable_reason()}")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AUTOGRADER_NO_BWRAP", "1")
        policy._detect.cache_clear()  # probed once per process: again, under this switch
        try:
            session = WorkerSession(memory_mb=2000, start_now=True)
        finally:
            policy._detect.cache_clear()
    assert not session.protections.bwrap
    session.switch(session.stage({"crashing": CRASHING}))
    yield session
    session.close()


@pytest.mark.parametrize("which", ["session", "unwrapped"])
def test_the_scratch_folder_itself_carries_nothing_from_one_test_to_the_next(request, which):
    # Its own timestamps (os.utime, or a file made and wiped) and user.* attributes survived the wipe of its contents and
    # the grader's comparison. Under bubblewrap /tmp is not the sandbox user's: it can change its times only to now.
    session = request.getfixturevalue(which)
    session.fresh("crashing")
    first, left = session.call("crashing", "mark_scratch", (41_000_000_000,), {}, 10, "crashing.mark_scratch(41)")
    assert "file" in left and (session.protections.bwrap or "times" in left), left
    session.fresh("crashing")  # the next test
    second, _ = session.call("crashing", "mark_scratch", (42_000_000_000,), {}, 10, "crashing.mark_scratch(42)")
    assert second == first and 41_000_000_000 not in second and "41000000000" not in second, (first, second)


FILLS = b'''
import os, time

def fill(seconds):
    """Start sleeping processes until the process limit refuses one; hold them ``seconds``."""
    started = 0
    try:
        while started < 2000:
            if os.fork() == 0:
                time.sleep(seconds + 20)
                os._exit(0)
            started += 1
    except BlockingIOError:
        pass
    time.sleep(seconds)
    return started
'''

HONEST = b'''
import os

def plus_one(x):
    return x + 1

def start_a_process():
    try:
        pid = os.fork()
    except BlockingIOError:
        return "refused"
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return "started"
'''

TWO_WORKERS = """
import json, os, sys, threading, time
from autograder.sandbox import policy
from autograder.sandbox.session import WorkerSession
from autograder.sandbox.worker import procfs

def tasks():
    return sum(s.threads for s in map(procfs.status, procfs.pids()) if s is not None and s.uid == os.getuid())

fills, honest = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
out = {"protections": policy.detect().describe()}
other = WorkerSession(memory_mb=2000, start_now=True)
bomb, hold = None, threading.Event()
try:
    other.switch(other.stage({"honest": honest}))
    other.import_module("honest", 30)
    out["before"] = other.call("honest", "plus_one", (1,), {}, 30, "honest.plus_one(1)")
    # the user's other programs start threads after this worker's limits were set and before the next worker's: a count
    # shared with them would give the next worker's module more room than this one's
    crowd = [threading.Thread(target=hold.wait) for _ in range(30)]
    for thread in crowd:
        thread.start()
    bomb = WorkerSession(memory_mb=2000, start_now=True)
    bomb.switch(bomb.stage({"fills": fills}))
    bomb.import_module("fills", 30)
    start = tasks()
    filling = threading.Thread(target=lambda: out.update(filled=bomb.call("fills", "fill", (15,), {}, 60, "fills.fill(15)")))
    filling.start()
    deadline = time.monotonic() + 30
    while tasks() < start + 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    other.fresh("honest")  # the next test: a fresh process for the module
    try:
        other.import_module("honest", 30)
        out["during"] = other.call("honest", "plus_one", (1,), {}, 30, "honest.plus_one(1)")
        out["starts"] = other.call("honest", "start_a_process", (), {}, 30, "honest.start_a_process()")
    except Exception as exc:
        out["during"] = f"{type(exc).__name__}: {exc}"
    filling.join()
finally:
    hold.set()
    other.close()
    if bomb is not None:
        bomb.close()
print(json.dumps(out))
"""


@pytest.mark.parametrize("namespaces", ["own", "refused"])
def test_a_module_that_fills_the_process_limit_costs_another_worker_of_the_same_user_nothing(namespaces):
    """A staff member grading as themselves without bubblewrap: one worker's module starts processes until its limit
    refuses one while another worker of the same user runs its next test. With a user namespace per worker the other
    module may still start processes; where the kernel gives none, the count is the user's, and the other module's own
    processes may be refused, never the worker's start of its test nor an honest call."""
    from tests.hostile import modes

    if os.geteuid() != 0:
        pytest.skip("the suite must be root to grade as another user")
    env = {"AUTOGRADER_NO_BWRAP": "1"} | ({"AUTOGRADER_NO_USERNS": "1"} if namespaces == "refused" else {})
    found = modes.protections_under(env, as_user=True)
    if namespaces == "own" and not found.own_user_namespace:
        pytest.skip("a user gets no user namespace here")
    uid = modes.user_uid_base() + (995 if namespaces == "own" else 994)  # of this process's block, and no hostile lab's
    root = Path(tempfile.mkdtemp(prefix="two-workers-", dir="/tmp"))  # pytest's folders are root's alone
    try:
        project = root / "project"
        shutil.copytree(paths.ROOT / "autograder", project / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
        (root / "fills.py").write_bytes(FILLS)
        (root / "honest.py").write_bytes(HONEST)
        (root / "tmp").mkdir()
        python, python_env = modes.user_python(root / "py", uid)
        modes.chown_tree(root, uid)
        full = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "PYTEST_", "XDG_"))}
        full.update(python_env, **env, HOME=str(root), TMPDIR=str(root / "tmp"))
        proc = subprocess.run([python, "-c", TWO_WORKERS, str(root / "fills.py"), str(root / "honest.py")], cwd=project,
                              env=full, capture_output=True, text=True, timeout=300, user=uid, group=uid, extra_groups=[])
        assert proc.returncode == 0, proc.stderr[-3000:]
        out = json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        subprocess.run(["pkill", "-KILL", "-u", str(uid)], check=False)
        shutil.rmtree(f"/tmp/autograder-zygote-{uid}", ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
    assert out["filled"] > 200, out
    assert out["before"] == 2 and out["during"] == 2, out
    if namespaces == "own":
        assert "own user namespace per worker" in out["protections"]
        assert out["starts"] == "started", out
    else:
        assert "a user namespace of its own (its processes count against" in out["protections"]


def test_a_session_whose_worker_fails_to_start_leaves_no_box(killed_run_tmp, monkeypatch):
    if policy.portable_reason():
        pytest.skip(f"the worker cannot run here: {policy.portable_reason()}")

    def fails(self):
        raise errors.SandboxFault("the grading worker did not start")

    monkeypatch.setattr(WorkerSession, "_begin", fails)
    with pytest.raises(errors.SandboxFault):
        WorkerSession(memory_mb=2000, start_now=True)
    assert list(killed_run_tmp.iterdir()) == []


THREADS = b'''
import torch


def address_space_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize"):
            return int(line.split()[1]) // 1024


def spread(threads):
    before = address_space_mb()
    torch.set_num_threads(threads)
    x = torch.ones(512, 512, dtype=torch.float64)
    for _ in range(3):
        (x @ x).sum() + torch.exp(torch.ones(1_000_000, dtype=torch.float64)).sum()
    return address_space_mb() - before
'''


def test_threads_a_module_starts_reserve_their_stacks_and_no_allocator_arena_each():
    # Each thread's own glibc arena reserved 64 MB: 8 threads added 526 MB of address space, past a call's hard cap.
    if policy.portable_reason():
        pytest.skip(f"the worker cannot run here: {policy.portable_reason()}")
    session = WorkerSession(memory_mb=2000, start_now=True)
    try:
        session.switch(session.stage({"threads": THREADS}))
        added = session.call("threads", "spread", (8,), {}, 30, "threads.spread(8)")
    finally:
        session.close()
    assert added <= 8 * 8 + 32, f"8 threads added {added} MB of address space"
