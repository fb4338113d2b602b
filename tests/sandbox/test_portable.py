"""The portable path, proven on Linux: the handout's `check` in a venv whose every Python lacks the Unix-only parts.

The venv's ``.pth`` removes fcntl, termios, resource, grp, pwd and os.fork and makes /proc unreadable, in
every Python process it starts (the check's children too), as on macOS or Windows. The check must then take
the portable path by itself, and give the results the Linux sandbox gives: reference, stubs, hostile modules.
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import venv

import pytest

from autograder.model import paths
from autograder.staff.handout import TOP

NO_UNIX = '''\
"""Make this Python look like one on Windows or macOS to the harness: no fcntl, termios, resource, grp, pwd, fork, /proc."""
import builtins, io, os, site, sys

site.addsitedir({site_packages!r})  # numpy, torch, yaml of the project's environment
BLOCKED = {{"fcntl", "termios", "resource", "grp", "pwd"}}  # grp and pwd: Windows lacks them too


class _Blocked:
    def find_spec(self, name, path=None, target=None):
        if name in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _Blocked())
for _name in BLOCKED:
    sys.modules.pop(_name, None)
for _name in ("fork", "forkpty", "O_NOFOLLOW"):  # O_NOFOLLOW: Windows lacks it too
    if hasattr(os, _name):
        delattr(os, _name)


def _no_proc(func):
    def guarded(path, *args, **kwargs):
        text = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else ""
        if text == "/proc" or text.startswith("/proc/"):
            raise PermissionError(13, "Permission denied", text)
        return func(path, *args, **kwargs)
    return guarded


builtins.open = io.open = _no_proc(io.open)
for _name in ("open", "listdir", "scandir", "stat", "lstat"):
    setattr(os, _name, _no_proc(getattr(os, _name)))
'''


@pytest.fixture(scope="module")
def no_unix_python(tmp_path_factory):
    """A venv whose Python processes lack the Unix-only modules, os.fork and /proc (with the project's packages)."""
    where = tmp_path_factory.mktemp("no-unix") / "venv"
    venv.create(where, with_pip=False, symlinks=True)
    python = where / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (where / purelib / "_no_unix.py").write_text(NO_UNIX.format(site_packages=sysconfig.get_paths()["purelib"]))
    (where / purelib / "zz_no_unix.pth").write_text("import _no_unix\n")
    return python


@pytest.fixture(scope="module")
def handout_root(built_handout, tmp_path_factory):
    root = tmp_path_factory.mktemp("portable") / TOP
    shutil.copytree(built_handout[1], root)
    return root


def env_without(*names):
    return {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_ROOT", "PYTHONPATH", "AUTOGRADER_PORTABLE", *names)}


def check(python, root, folder, extra_env=None, problems=()):
    asked = [arg for module in problems for arg in ("-p", module)]
    return subprocess.run([str(python), "-m", "autograder", "check", str(folder), *asked], cwd=root,
                          env=dict(env_without(), **(extra_env or {})), capture_output=True, text=True, timeout=300)


def outcomes(stdout):
    """Each test's PASS/FAIL line of the table: what must agree between the two paths."""
    return re.findall(r"^  (PASS|FAIL)  (\S+)", stdout, flags=re.M)


HOSTILE = {
    "qkv_arithmetic": "\n\ndef argmax_attention(Q, K, V):\n    while True:\n        pass\n",
    "receptive_field": ("\n\n_size = receptive_field_size\n\ndef receptive_field_size(n_layers, n_heads, seq_len=None):\n"
                        "    if seq_len == 10:\n        import os\n        os._exit(3)\n    return _size(n_layers, n_heads, seq_len)\n"),
    "complexity": "\nprint('x' * 20_000_000)\n",
    "shift_matrix": "\nraise RuntimeError('boom at import')\n",
}


def test_the_venv_lacks_what_windows_and_macos_lack(no_unix_python):
    probe = ("import os, sys\nfor name in ('fcntl', 'termios', 'resource'):\n    try:\n        __import__(name)\n        print('has', name)\n"
             "    except ImportError:\n        pass\nprint('fork' if hasattr(os, 'fork') else 'no fork')\n"
             "try:\n    open('/proc/self/stat')\n    print('proc')\nexcept OSError:\n    print('no proc')\nimport torch, numpy")
    proc = subprocess.run([no_unix_python, "-I", "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["no", "fork", "no", "proc"], proc.stdout + proc.stderr


def test_handout_check_on_the_portable_path(no_unix_python, handout_root, assignment):
    help_text = subprocess.run([no_unix_python, "-m", "autograder", "--help"], cwd=handout_root, env=env_without(),
                               capture_output=True, text=True, timeout=120)
    assert help_text.returncode == 0 and "check" in help_text.stdout, help_text.stderr

    stubs = check(no_unix_python, handout_root, "student_template")
    assert stubs.returncode == 1, stubs.stdout[-3000:] + stubs.stderr
    assert "Traceback" not in stubs.stdout + stubs.stderr
    results = outcomes(stubs.stdout)
    assert results and all(mark == "FAIL" for mark, _ in results)
    assert stubs.stdout.count("is not implemented yet") >= len(results) - 3, stubs.stdout[-3000:]  # a test may fail on its first call only

    reference = handout_root / "reference"
    reference.mkdir()
    for module in assignment.modules:
        shutil.copy(paths.REFERENCE / f"{module}.py", reference / f"{module}.py")
    good = check(no_unix_python, handout_root, reference)
    assert good.returncode == 0, good.stdout[-3000:] + good.stderr
    assert f"All {len(results)} public tests pass" in good.stdout and "hidden tests" in good.stdout


def test_hostile_modules_get_the_same_results_on_both_paths(no_unix_python, handout_root):
    hostile = handout_root / "hostile"
    hostile.mkdir()
    for module, attack in HOSTILE.items():
        (hostile / f"{module}.py").write_text((paths.REFERENCE / f"{module}.py").read_text() + attack)
    portable = check(no_unix_python, handout_root, hostile, problems=HOSTILE)
    linux = check(sys.executable, handout_root, hostile, problems=HOSTILE)
    for proc in (portable, linux):
        out = proc.stdout
        assert proc.returncode == 1 and "Traceback (most recent call last)" not in proc.stderr, out[-3000:] + proc.stderr
        assert "qkv_arithmetic.argmax_attention(" in out and "did not finish within the time limit of 5 s" in out, out[-4000:]
        assert "exited with status 3" in out, out[-4000:]
        assert "could not be imported: RuntimeError: boom at import" in out, out[-4000:]
        assert "more bytes of output dropped" in out, out[-4000:]
    assert outcomes(portable.stdout) == outcomes(linux.stdout)
    failed = {name for mark, name in outcomes(linux.stdout) if mark == "FAIL"}
    assert "argmax_attention_worked_example" in failed and "size_capped_at_seq_len" in failed
    assert {name for mark, name in outcomes(linux.stdout) if mark == "PASS"} >= {"qkv_worked_example", "size_formula"}


def test_staff_commands_refuse_without_the_sandbox(no_unix_python, tmp_path):
    for python, extra in ((no_unix_python, {}), (sys.executable, {"AUTOGRADER_PORTABLE": "1"})):
        proc = subprocess.run([str(python), "-m", "autograder", "grade", str(paths.REFERENCE), "--out", str(tmp_path / "r.json")],
                              cwd=paths.ROOT, env=dict(env_without(), **extra), capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2 and "refusing to grade untrusted code without the sandbox" in proc.stderr, proc.stdout + proc.stderr
        assert not (tmp_path / "r.json").exists()


def test_grade_all_and_every_staff_session_refuse_too(tmp_path, monkeypatch):
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(paths.REFERENCE), "--out", str(tmp_path / "g.csv")],
                          cwd=paths.ROOT, env=dict(env_without(), AUTOGRADER_PORTABLE="1"), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and "refusing to grade untrusted code without the sandbox: AUTOGRADER_PORTABLE=1" in proc.stderr, proc.stderr
    assert not (tmp_path / "g.csv").exists()

    from autograder.sandbox.errors import SandboxUnavailable
    from autograder.sandbox.session import WorkerSession

    monkeypatch.setenv("AUTOGRADER_PORTABLE", "1")
    with pytest.raises(SandboxUnavailable, match="AUTOGRADER_PORTABLE=1"):
        WorkerSession(memory_mb=1024)  # otter's path on Gradescope builds one too


SERVED_IN_TURN = {  # each module says which process it ran in and what a fresh tensor's dtype is there
    "first": "import os, torch\ndef where():\n    return os.getpid(), str(torch.zeros(1).dtype)\n",
    "second": "import os, torch\ndef where():\n    return os.getpid(), str(torch.zeros(1).dtype)\n",
    "doubles": ("import os, torch\ntorch.set_default_dtype(torch.float64)\n"
                "def where():\n    return os.getpid(), str(torch.zeros(1).dtype)\n"),
    "after_doubles": "import os, torch\ndef where():\n    return os.getpid(), str(torch.zeros(1).dtype)\n",
    "alarm": ("import os, signal, torch\ndef where():\n    signal.setitimer(signal.ITIMER_REAL, 0.3)  # ends the process soon after\n"
              "    return os.getpid(), str(torch.zeros(1).dtype)\n"),
    "after_alarm": "import os, torch\ndef where():\n    return os.getpid(), str(torch.zeros(1).dtype)\n",
}


def serve_in_turn(modules: dict[str, str], func: str, pause: dict[str, float] | None = None):
    """Import each of ``modules`` (name -> source) in turn in one portable session and call its ``func()``; return what
    each call gave and the session (closed). ``pause``: seconds to wait before a module."""
    from autograder.sandbox.portable import PortableSession

    session = PortableSession("test", planned=len(modules))
    try:
        session.switch(session.stage({name: source.encode() for name, source in modules.items()}))
        session.start()
        found = {}
        for name in modules:
            time.sleep((pause or {}).get(name, 0))
            session.import_module(name, 20)
            found[name] = session.call(name, func, (), {}, 20, f"{name}.{func}()")
    finally:
        session.close()
    return found, session


def test_one_child_serves_the_modules_in_turn_and_a_fresh_one_follows_a_module_that_changed_it():
    """Clean modules share a child (one torch import per check); after a module that changed torch's default dtype the
    next gets a fresh child and sees float32, as alone; a child that dies between modules (a timer the module before set)
    costs the next module nothing: its import is tried again in a fresh child."""
    found, session = serve_in_turn(SERVED_IN_TURN, "where", pause={"after_alarm": 0.6})
    seen = {name: tuple(value) for name, value in found.items()}
    pid = {name: found[0] for name, found in seen.items()}
    assert pid["first"] == pid["second"] == pid["doubles"], seen
    assert seen["doubles"][1] == "torch.float64" and seen["after_doubles"][1] == "torch.float32", seen
    assert pid["after_doubles"] != pid["doubles"] and pid["alarm"] == pid["after_doubles"], seen
    assert pid["after_alarm"] != pid["alarm"] and session.broken == {}, (seen, session.broken)
    assert [e.op for e in session.exchanges].count("import") == len(SERVED_IN_TURN), session.exchanges


KERNEL_LEFT = {  # a module that puts a kernel of its own in place of aten's cumsum, then one that sums
    "kernel": ("import torch\n_LIB = torch.library.Library('aten', 'IMPL')\n"
               "_LIB.impl('cumsum', lambda x, dim, dtype=None: torch.zeros_like(x), 'CPU')\n"
               "def sums():\n    return torch.cumsum(torch.ones(3), 0).tolist()\n"),
    "after_kernel": "import torch\ndef sums():\n    return torch.cumsum(torch.ones(3), 0).tolist()\n",
}


def test_a_torch_library_kernel_left_by_one_module_never_reaches_the_next():
    found, _ = serve_in_turn(KERNEL_LEFT, "sums")
    assert found == {"kernel": [0.0, 0.0, 0.0], "after_kernel": [1.0, 2.0, 3.0]}, found


def test_a_settle_returns_at_once_where_the_pipe_is_counted_and_empty(monkeypatch):
    """After every test the grader settles the child's output: where the drain counts the bytes left in the pipe (POSIX)
    an empty pipe is certain and costs no wait (a 5 ms wait each was half a second of a whole check); elsewhere the
    drain's thread may just have woken, so it looks twice."""
    from autograder.sandbox import portable

    slept = []
    monkeypatch.setattr(portable.time, "sleep", slept.append)

    class CaughtUp:
        exact = True

        def is_alive(self) -> bool:
            return True

        def caught_up(self) -> bool:
            return True

    child = portable._Child.__new__(portable._Child)
    child.drain = CaughtUp()
    child.settle()
    assert slept == []
    CaughtUp.exact = False
    child.settle()
    assert slept == [0.005]
