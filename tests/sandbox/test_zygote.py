"""Workers forked from the zygote: confined as a fresh worker is, unable to reach the zygote, ended with the grader that
asked for them; a zygote that cannot serve leaves the session a fresh worker, and an idle one leaves nothing behind."""

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from autograder.model import paths
from autograder.sandbox import policy, runtime, zygote
from autograder.sandbox.session import WorkerSession
from autograder.sandbox.worker import procfs

pytestmark = pytest.mark.skipif(zygote.unusable(False, policy.detect()) is not None or policy.portable_reason() is not None,
                                reason=f"no zygote on this machine: {zygote.unusable(False, policy.detect())}")

PROBE = b'''
import os, signal, socket

def findings():
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
    kept = {k: status[k].strip() for k in ("Uid", "Gid", "CapEff", "CapPrm", "CapInh", "CapAmb", "NoNewPrivs", "Seccomp")}
    import tempfile
    return kept | {"oom": open("/proc/self/oom_score_adj").read().strip(), "env": sorted(os.environ), "ns": {n: os.readlink(f"/proc/self/ns/{n}") for n in ("mnt", "pid", "net")},
                   "temporary": tempfile.gettempdir() == os.environ["TMPDIR"], "home": os.path.expanduser("~") == os.environ["HOME"]}

def reach(pid, path):
    """Every way to the zygote (``pid`` as the grader sees it, its socket at ``path``) a test's process might try."""
    found = {}
    attempts = {
        "kill": lambda: os.kill(pid, signal.SIGKILL),
        "mem": lambda: open(f"/proc/{pid}/mem", "rb").read(1),
        "environ": lambda: open(f"/proc/{pid}/environ", "rb").read(1),
        "fds": lambda: os.listdir(f"/proc/{pid}/fd"),
        "connect": lambda: socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).connect(path),
    }
    for name, attempt in attempts.items():
        try:
            attempt()
            found[name] = "done"
        except Exception as exc:
            found[name] = type(exc).__name__
    links = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            pass
    found["sockets"] = [link for link in links if link.startswith("socket:")]
    return found

def orphan():
    """The pid of a process that left this one's session and group, then its parent: the first process adopts it."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            import time
            time.sleep(120)
            os._exit(0)
        os.write(write, str(pid).encode())
        os._exit(0)
    os.close(write)
    return int(os.read(read, 32))
'''


def _session(monkeypatch: pytest.MonkeyPatch, forked: bool) -> WorkerSession:
    monkeypatch.setenv("AUTOGRADER_ZYGOTE", "1" if forked else "0")  # read when each session is set up
    session = WorkerSession(memory_mb=2000, start_now=True)
    session.switch(session.stage({"probe": PROBE}))
    assert session.setup.forked is forked, session.start_note()
    return session


@pytest.fixture
def forked(monkeypatch):
    session = _session(monkeypatch, True)
    yield session
    session.close()


def _zygote_of(session: WorkerSession) -> int:
    session.call("probe", "findings", (), {}, 30, "probe.findings()")  # the worker is up
    return procfs.stat(session._worker.host_pid).ppid


@pytest.mark.parametrize("bwrap", [True, False], ids=["bwrap", "no-bwrap"])
def test_a_forked_worker_is_confined_as_a_fresh_one(monkeypatch, bwrap):
    found_here = policy.detect()
    if bwrap and not found_here.bwrap:
        pytest.skip("bubblewrap does not run here")
    monkeypatch.setattr(policy, "detect", lambda: dataclasses.replace(found_here, bwrap=found_here.bwrap if bwrap else None))
    forked = _session(monkeypatch, True)
    try:
        _compare(monkeypatch, forked)
    finally:
        forked.close()


def _compare(monkeypatch, forked):
    fresh = _session(monkeypatch, False)
    try:
        found = {}
        for name, s in (("forked", forked), ("fresh", fresh)):
            found[name] = s.call("probe", "findings", (), {}, 30, "probe.findings()")
            uid = s.setup.identity.uid if s.setup.identity else os.getuid()  # each session leases a uid of its own
            assert found[name].pop("Uid").split() == [str(uid)] * 4 and found[name].pop("Gid").split()[0] != "0"
    finally:
        fresh.close()
    namespaces, fresh_namespaces = found["forked"].pop("ns"), found["fresh"].pop("ns")
    assert found["forked"] == found["fresh"]
    assert found["forked"]["NoNewPrivs"] == "1"
    assert found["forked"]["CapEff"] == found["forked"]["CapPrm"] == found["forked"]["CapInh"] == "0000000000000000"
    if forked.protections.bwrap:  # bubblewrap's namespaces, none of the zygote's and none of another worker's
        zygote_pid = _zygote_of(forked)  # root's (its namespaces are no one else's to read: it is not dumpable)
        zygote_namespaces = {n: os.readlink(f"/proc/{zygote_pid}/ns/{n}") for n in ("mnt", "pid", "net")}
        assert all(namespaces[n] != zygote_namespaces[n] for n in namespaces), (namespaces, zygote_namespaces)
        assert all(namespaces[n] != fresh_namespaces[n] for n in namespaces)


def test_a_forked_worker_cannot_reach_the_zygote(forked):
    zygote_pid = _zygote_of(forked)
    path = str(zygote.folder() / f"{zygote.key(forked.setup.interpreter)}.sock")
    found = forked.call("probe", "reach", (zygote_pid, path), {}, 30, "probe.reach()")
    assert all(found[name] != "done" for name in ("kill", "mem", "environ", "fds", "connect")), found
    assert found["sockets"] == [], found
    assert procfs.stat(zygote_pid) is not None  # still there, and still forking
    if os.geteuid() == 0:  # the first process is not dumpable: only root may list its descriptors
        fds = f"/proc/{forked._worker.host_pid}/fd"
        links = [os.readlink(f"{fds}/{fd}") for fd in os.listdir(fds)]
        assert not [link for link in links if link.startswith("socket:")], links  # it holds none of the zygote's sockets


def test_a_worker_ends_with_its_graders_connection(forked):
    _zygote_of(forked)
    worker = forked._worker
    worker.proc.conn.close()  # as when the grader dies
    end = time.monotonic() + 10
    while procfs.stat(worker.host_pid) not in (None,) and procfs.stat(worker.host_pid).state != "Z":
        assert time.monotonic() < end, "the worker outlived its grader's connection"
        time.sleep(0.05)


def test_how_a_forked_worker_ended_comes_back_from_the_zygote(forked):
    _zygote_of(forked)
    os.kill(forked._worker.host_pid, signal.SIGSEGV)
    assert forked._worker.proc.wait(timeout=10) == -signal.SIGSEGV
    assert "SIGSEGV" in forked._worker.exit_description()
    assert forked.call("probe", "findings", (), {}, 30, "probe.findings()")["Uid"]  # a new worker takes over
    assert forked.restarts == 1


def test_what_a_worker_left_when_it_died_is_killed_by_the_zygote(monkeypatch):
    found_here = policy.detect()  # without bubblewrap: no PID namespace ends with the worker
    monkeypatch.setattr(policy, "detect", lambda: dataclasses.replace(found_here, bwrap=None))
    session = _session(monkeypatch, True)
    try:
        left = session.call("probe", "orphan", (), {}, 30, "probe.orphan()")
        assert procfs.stat(left) is not None
        os.kill(session._worker.host_pid, signal.SIGKILL)  # before any reset could end what the test left
        end = time.monotonic() + 15
        while procfs.stat(left) is not None:
            assert time.monotonic() < end, f"process {left}, orphaned by a dead worker, still runs"
            time.sleep(0.1)
    finally:
        session.close()


def test_a_zygote_that_cannot_start_leaves_the_session_a_fresh_worker(monkeypatch, tmp_path):
    foreign = tmp_path / "zygotes"
    foreign.mkdir(mode=0o700)
    if os.geteuid() == 0:
        os.chown(foreign, 65534, 65534)  # not this user's: no socket in it can be trusted
    else:
        foreign.chmod(0o755)  # open to others: no socket in it can be trusted either
    monkeypatch.setattr(zygote, "folder", lambda: foreign)
    monkeypatch.setenv("AUTOGRADER_ZYGOTE", "1")
    session = WorkerSession(memory_mb=2000, start_now=True)
    try:
        session.switch(session.stage({"probe": PROBE}))
        assert session.call("probe", "findings", (), {}, 30, "probe.findings()")["NoNewPrivs"] == "1"
        assert not session.setup.forked and "not a private folder" in session.start_note(), session.start_note()
    finally:
        session.close()


def test_an_idle_zygote_leaves_and_takes_its_socket_and_is_no_child_of_its_starter():
    path = zygote._folder() / "idle-test.sock"
    zygote._spawn(runtime.this_interpreter(), path, idle=0.5)
    assert path.exists()
    assert not [pid for pid in procfs.children(os.getpid()) or [] if "zygote.py" in _command_line(pid)]
    end = time.monotonic() + 30
    while path.exists():
        assert time.monotonic() < end, "an idle zygote stayed"
        time.sleep(0.1)


def _command_line(pid: int) -> str:
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
    except OSError:
        return ""


def test_the_zygotes_folder_is_its_user_s_alone():
    info = zygote._folder().lstat()
    assert info.st_uid == os.geteuid() and info.st_mode & 0o077 == 0


def test_a_grader_with_other_limits_or_another_python_gets_another_zygote():
    here = runtime.this_interpreter()
    other = runtime.Interpreter(here.executable, here.roots, {**here.env, "PYTHONPATH": "/elsewhere"})
    assert zygote.key(here) == zygote.key(here) != zygote.key(other)
    code = ("import resource; from autograder.sandbox import runtime, zygote; "
            "resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)); print(zygote.key(runtime.this_interpreter()))")
    limited = subprocess.run([os.sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert limited != zygote.key(here)


AS_USER = """
import json, os, sys
from autograder.sandbox import zygote
from autograder.sandbox.session import WorkerSession
from autograder.sandbox.worker import procfs

probe = open(sys.argv[1], "rb").read()
out = {}
for forked in (True, False):
    os.environ["AUTOGRADER_ZYGOTE"] = "1" if forked else "0"
    session = WorkerSession(memory_mb=2000, start_now=True)
    try:
        session.switch(session.stage({"probe": probe}))
        entry = {"forked": session.setup.forked, "note": session.start_note(),
                 "findings": session.call("probe", "findings", (), {}, 30, "probe.findings()")}
        if forked:
            entry["zygote"] = procfs.stat(session._worker.host_pid).ppid
            entry["folder"] = str(zygote.folder())
            path = str(zygote.folder() / f"{zygote.key(session.setup.interpreter)}.sock")
            entry["reach"] = session.call("probe", "reach", (entry["zygote"], path), {}, 30, "probe.reach()")
        out["forked" if forked else "fresh"] = entry
    finally:
        session.close()
print(json.dumps(out))
"""


def test_a_grader_that_is_not_root_forks_its_workers_from_a_zygote_of_its_own_that_they_cannot_reach():
    """A staff member's own user, with Landlock and seccomp and without bubblewrap: the zygote is that user's, and a
    forked worker is confined as a fresh one of the same grader."""
    from tests.hostile import modes

    if os.geteuid() != 0:
        pytest.skip("the suite must be root to grade as another user")
    found = modes.protections_under({"AUTOGRADER_NO_BWRAP": "1"}, as_user=True)
    if not found.seccomp or found.landlock < zygote.LANDLOCK_SCOPES:
        pytest.skip(f"a user's grader here has seccomp {found.seccomp} and Landlock ABI {found.landlock}")
    uid = modes.user_uid_base() + 997  # of this process's block, and no hostile lab's
    tmp_path = Path(tempfile.mkdtemp(prefix="zygote-user-", dir="/tmp"))  # pytest's folders are root's alone
    project = tmp_path / "project"
    shutil.copytree(paths.ROOT / "autograder", project / "autograder", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "probe.py").write_bytes(PROBE)
    (tmp_path / "tmp").mkdir()
    python, python_env = modes.user_python(tmp_path / "py", uid)
    modes.chown_tree(tmp_path, uid)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "PYTEST_", "XDG_"))}
    env.update(python_env, AUTOGRADER_NO_BWRAP="1", HOME=str(tmp_path), TMPDIR=str(tmp_path / "tmp"))
    proc = subprocess.run([python, "-c", AS_USER, str(tmp_path / "probe.py")], cwd=project, env=env, capture_output=True,
                          text=True, timeout=300, user=uid, group=uid, extra_groups=[])
    try:
        assert proc.returncode == 0, proc.stderr[-3000:]
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        forked, fresh = out["forked"], out["fresh"]
        assert forked["forked"] and not fresh["forked"], (forked["note"], fresh["note"])
        assert procfs.status(forked["zygote"]).uid == uid  # the user's own zygote, not root's
        assert forked["folder"] == f"/tmp/autograder-zygote-{uid}"
        info = os.lstat(forked["folder"])
        assert info.st_uid == uid and info.st_mode & 0o077 == 0
        assert forked["findings"].pop("ns") == fresh["findings"].pop("ns")
        assert forked["findings"] == fresh["findings"]
        assert forked["findings"]["Uid"].split() == [str(uid)] * 4 and forked["findings"]["Seccomp"] == "2"
        reach = forked["reach"]
        assert all(reach[name] != "done" for name in ("kill", "mem", "environ", "fds", "connect")), reach
        assert reach["sockets"] == [], reach
        assert procfs.stat(forked["zygote"]) is not None  # still there
    finally:
        for pid in procfs.pids():
            status = procfs.status(pid)
            if status is not None and status.uid == uid:
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(f"/tmp/autograder-zygote-{uid}", ignore_errors=True)
        shutil.rmtree(tmp_path, ignore_errors=True)
