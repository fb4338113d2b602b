"""The kernel layers the worker applies to itself: Landlock confines files and signals, seccomp refuses syscalls."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from autograder.sandbox.worker import confine

LANDLOCK = confine.landlock_abi()
PROBED = json.loads(subprocess.run([sys.executable, "-I", confine.__file__, "--probe"], capture_output=True, text=True, timeout=60).stdout)
needs_seccomp = pytest.mark.skipif(not PROBED["seccomp"], reason=f"no seccomp filter here: {PROBED.get('seccomp_error')}")


def run_confined(tmp_path, body: str) -> dict:
    """Run ``body`` in a fresh Python after applying the layers (scratch: tmp_path/scratch); return what it printed as JSON."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    code = textwrap.dedent(f"""
        import json, os, sys
        sys.path.insert(0, {os.path.dirname(confine.__file__)!r})
        import confine
        confine.apply_landlock([sys.prefix, sys.base_prefix], [{str(scratch)!r}]) if {bool(LANDLOCK)} else None
        confine.apply_seccomp() if {bool(PROBED["seccomp"])} else None
        out = {{}}
    """) + textwrap.dedent(body) + "\nprint(json.dumps(out))\n"
    env = dict(os.environ, TMPDIR=str(scratch))  # as in the worker: the scratch folder is the only temporary folder
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120, cwd="/", env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _try(expression: str) -> str:
    return f"""
try:
    {expression}
    result = "allowed"
except OSError as exc:
    result = type(exc).__name__
"""


@pytest.mark.skipif(not LANDLOCK, reason="this kernel (or its container) offers no Landlock")
def test_landlock_allows_the_scratch_folder_and_refuses_the_rest(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("reference\n")
    body = (_try(f"open({str(tmp_path / 'scratch' / 'ok.txt')!r}, 'w').close()") + "out['scratch'] = result\n"
            + _try(f"open({str(secret)!r}).read()") + "out['read secret'] = result\n"
            + _try(f"open({str(tmp_path / 'new.txt')!r}, 'w').close()") + "out['write beside'] = result\n"
            + _try("os.kill(os.getppid(), 0)") + "out['signal parent'] = result\n"
            + "import torch\nout['torch'] = float(torch.ones(3).sum())\n")
    out = run_confined(tmp_path, body)
    assert out["scratch"] == "allowed" and out["torch"] == 3.0
    assert out["read secret"] == "PermissionError" and out["write beside"] == "PermissionError"
    if LANDLOCK >= 6:
        assert out["signal parent"] == "PermissionError"


@needs_seccomp
def test_seccomp_refuses_sockets_ptrace_and_namespaces(tmp_path):
    body = ("import socket, ctypes\n" + _try("socket.socket(socket.AF_INET, socket.SOCK_STREAM)") + "out['inet'] = result\n"
            + _try("socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)") + "out['unix'] = result\n"
            + "libc = ctypes.CDLL(None, use_errno=True)\n"
            + "out['ptrace'] = libc.ptrace(16, os.getppid(), 0, 0) == -1 and ctypes.get_errno()\n"  # PTRACE_ATTACH
            + "out['unshare'] = libc.unshare(0x10000000) == -1 and ctypes.get_errno()\n"           # CLONE_NEWUSER
            + "import subprocess\nout['subprocess'] = subprocess.run(['/bin/echo', 'hi'], capture_output=True, text=True).stdout\n")
    out = run_confined(tmp_path, body)
    assert out["inet"] == "PermissionError" and out["unix"] == "PermissionError"
    assert out["ptrace"] == 1 and out["unshare"] == 1  # EPERM
    assert out["subprocess"] == "hi\n"


@needs_seccomp
def test_seccomp_refuses_every_way_to_read_or_set_which_pages_of_a_file_are_cached(tmp_path):
    # A bit per file that outlives the process: set by reading a page or cleared by evicting it, read exactly. Each
    # way is refused (EPERM); plain reads and mappings stay allowed.
    body = textwrap.dedent("""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        libc.mmap.restype, libc.mmap.argtypes = ctypes.c_void_p, (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                                                  ctypes.c_int, ctypes.c_int, ctypes.c_long)
        libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
        libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        fd = os.open(sys.executable, os.O_RDONLY)
        out["read"] = len(os.pread(fd, 16, 0))

        def errno_of(call):
            try:
                call()
                return 0
            except OSError as exc:
                return exc.errno

        def refused(result):
            return result == -1 and ctypes.get_errno()

        out["fadvise"] = errno_of(lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED))
        out["preadv2"] = errno_of(lambda: os.preadv(fd, [bytearray(16)], 0, os.RWF_NOWAIT))
        out["readahead"] = refused(libc.readahead(fd, ctypes.c_longlong(0), ctypes.c_size_t(4096)))
        start = libc.mmap(None, 4096, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
        out["mapped"] = start not in (None, ctypes.c_void_p(-1).value)
        out["mincore"] = refused(libc.mincore(start, 4096, ctypes.byref((ctypes.c_ubyte * 1)())))
        out["madvise cold"] = refused(libc.madvise(start, 4096, 20))
        out["madvise pageout"] = refused(libc.madvise(start, 4096, 21))
        out["madvise willneed"] = libc.madvise(start, 4096, 3)
        out["cachestat"] = refused(libc.syscall(451, fd, ctypes.byref((ctypes.c_ulonglong * 2)(0, 4096)),
                                                ctypes.byref((ctypes.c_ulonglong * 5)()), 0))
    """)
    out = run_confined(tmp_path, body)
    assert out["read"] == 16 and out["mapped"] and out["madvise willneed"] == 0
    refused = {k: v for k, v in out.items() if k not in ("read", "mapped", "madvise willneed")}
    assert refused == dict.fromkeys(refused, 1), refused  # EPERM each


@needs_seccomp
def test_seccomp_refuses_posix_message_queues(tmp_path):
    # Landlock's rule on /dev/mqueue does not stop mq_open (a system call of its own): a queue made there outlived the
    # grading, in the host's IPC namespace, and its name told a later run what a hidden test had seen.
    body = textwrap.dedent("""
        import ctypes
        librt = ctypes.CDLL("librt.so.1", use_errno=True)
        librt.mq_open.restype = ctypes.c_int
        made = librt.mq_open(b"/autograder-test-queue", os.O_CREAT | os.O_RDWR, 0o600, None)
        out["mq_open"] = made == -1 and ctypes.get_errno()
        if made != -1:
            librt.mq_unlink(b"/autograder-test-queue")
    """)
    assert run_confined(tmp_path, body) == {"mq_open": 1}  # EPERM


def test_probe_applies_what_the_kernel_offers():
    assert PROBED["landlock"] == LANDLOCK, PROBED.get("landlock_error")


@pytest.mark.skipif(not PROBED["userns"], reason="this kernel (or its container) gives a user no user namespace")
def test_a_user_namespace_of_its_own_keeps_the_ids_and_gives_no_capability():
    code = textwrap.dedent(f"""
        import json, os, sys
        sys.path.insert(0, {os.path.dirname(confine.__file__)!r})
        import confine
        before = os.readlink("/proc/self/ns/user")
        confine.enter_user_namespace()
        status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
        print(json.dumps({{"new": os.readlink("/proc/self/ns/user") != before, "ids": [os.getuid(), os.getgid()],
                          "caps": [int(status[k], 16) for k in ("CapEff", "CapPrm", "CapInh", "CapAmb")],
                          "map": open("/proc/self/uid_map").read().split()}}))
    """)
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60, cwd="/")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["new"] and out["ids"] == [os.getuid(), os.getgid()] and out["caps"] == [0, 0, 0, 0]
    assert out["map"] == [str(os.getuid()), str(os.getuid()), "1"]


@pytest.mark.skipif(not PROBED["userns"], reason="this kernel (or its container) gives a user no user namespace")
def test_the_probe_offers_a_user_namespace_only_where_it_counts_the_processes_apart():
    """A kernel before 5.14 makes the namespace but counts its processes per uid: the worker would then cap the user's
    whole count at its own limit. The probe forks under a limit of 2 in the namespace, which only a count of its own
    allows; without the namespace (as on such a kernel) it says no."""
    import shutil
    import tempfile

    from autograder.sandbox import runtime

    folder = tempfile.mkdtemp(prefix="probe-userns-", dir="/tmp")  # pytest's folders are the suite's user's alone
    shutil.copy(confine.__file__, folder)
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {folder!r})
        import confine
        real = confine._probe_user_namespace()
        confine.enter_user_namespace = lambda: None
        print(real, confine._probe_user_namespace())
    """)
    as_user = {}
    if os.geteuid() == 0:  # root's processes are never refused for their count: ask as a uid of the suite's own
        from tests.hostile import modes

        spare = modes.user_uid_base() + 993
        as_user = {"user": spare, "group": spare, "extra_groups": []}
    os.chmod(folder, 0o755)
    python = runtime.interpreter_for_others().executable
    try:
        proc = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True, timeout=60, cwd="/", **as_user)
    finally:
        shutil.rmtree(folder)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "False"]
