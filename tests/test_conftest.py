"""The suite's own guard: under ``--no-grading`` (``make test-fast``) a test that starts a worker fails, however the
worker would start (a fresh process, or a fork of the zygote)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STARTS_A_WORKER = """
import tests.conftest as guard
guard._refuse_grading()
from autograder.sandbox.session import WorkerSession
session = WorkerSession(memory_mb=2000, start_now=True)
session.switch(session.stage({"m": b"def f():\\n    return 1\\n"}))
print("graded", session.call("m", "f", (), {}, 30, "m.f()"))
"""


def test_no_grading_refuses_every_start_of_a_worker():
    done = subprocess.run([sys.executable, "-c", STARTS_A_WORKER], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0 and "graded" not in done.stdout, done.stdout + done.stderr
    assert "under --no-grading" in done.stderr, done.stderr[-2000:]
