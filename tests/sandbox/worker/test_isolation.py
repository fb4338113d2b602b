"""What a test's child enters before any student code: its own streams and descriptors, and the layers that keep it
away from the worker's first process (the hostile suites try the same from student code)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from autograder.sandbox.worker import confine

LANDLOCK = confine.landlock_abi()
PROBED = json.loads(subprocess.run([sys.executable, "-I", confine.__file__, "--probe"], capture_output=True, text=True, timeout=60).stdout)


def entered(tmp_path, landlock: bool, seccomp: bool) -> dict:
    """Confine a fresh Python as the worker's first process does, prepare the isolation, fork a child that enters it and
    reports on itself: each child (two in a row) as JSON."""
    code = textwrap.dedent(f"""
        import errno, json, os, sys
        sys.path.insert(0, {os.path.dirname(confine.__file__)!r})
        import confine, isolation
        if {landlock}:
            confine.apply_landlock([sys.prefix, sys.base_prefix], [{str(tmp_path)!r}])
        if {seccomp}:
            confine.apply_seccomp()
        prepared = isolation.Isolation.prepare({landlock}, {seccomp})
        first = os.getpid()
        for _ in range(2):
            report_r, report_w = os.pipe()
            out_r, out_w = os.pipe()
            spare = os.open(os.devnull, os.O_RDONLY)  # a descriptor of the first process's that the child must not keep
            pid = os.fork()
            if pid == 0:
                prepared.enter(out_w, keep=(report_w,))
                out = {{"fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")), "report": report_w}}
                try:
                    os.kill(first, 0)
                    out["signal first"] = "allowed"
                except OSError as exc:
                    out["signal first"] = errno.errorcode[exc.errno]
                import signal
                try:
                    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
                    out["ignore SIGCHLD"] = "allowed"
                except OSError as exc:
                    out["ignore SIGCHLD"] = errno.errorcode[exc.errno]
                with open("/proc/self/status") as f:
                    out["seccomp filters"] = next(int(line.split()[1]) for line in f if line.startswith("Seccomp_filters:"))
                os.write(report_w, json.dumps(out).encode())
                os._exit(0)
            for fd in (report_w, out_w, spare):
                os.close(fd)
            print(os.read(report_r, 10000).decode())
            os.waitpid(pid, 0)
    """)
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120, cwd="/")
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.strip().splitlines()]


def test_a_child_keeps_only_its_streams_and_its_pipes(tmp_path):
    for child in entered(tmp_path, landlock=False, seccomp=False):
        # 0, 1, 2, the report pipe and the descriptor listdir opened: none of the first process's
        assert child["fds"][:3] == [0, 1, 2] and len(child["fds"]) == 5 and child["report"] in child["fds"]
        assert child["signal first"] == "allowed"  # no layer: the grader's check after the test is what stands
        assert child["ignore SIGCHLD"] == "allowed"


@pytest.mark.skipif(LANDLOCK < 6, reason="this kernel's Landlock has no signal scope (ABI 6)")
def test_each_child_enters_a_landlock_domain_of_its_own(tmp_path):
    for child in entered(tmp_path, landlock=True, seccomp=False):
        assert child["signal first"] == "EPERM"
        assert len(child["fds"]) == 5  # no ruleset left open


@pytest.mark.skipif(not PROBED["seccomp"], reason=f"no seccomp filter here: {PROBED.get('seccomp_error')}")
def test_each_child_loads_the_filter_that_names_the_first_process(tmp_path):
    for child in entered(tmp_path, landlock=False, seccomp=True):
        assert child["signal first"] == "EPERM"
        assert child["seccomp filters"] == 2  # the first process's and the child's own
        assert child["ignore SIGCHLD"] == "EPERM"  # its children's CPU time stays counted in its own
