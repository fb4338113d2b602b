"""`settings.one_blas_thread`: the grading process's numpy runs one BLAS thread, and only the grading process's."""

import os
import subprocess
import sys

from autograder import settings
from autograder.gradescope import entry
from autograder.model import paths

PROBE = """
import os, sys
{before}
from autograder import cli
cli.main(["config"])
import numpy
numpy.ones((64, 64)) @ numpy.ones((64, 64))  # OpenBLAS starts its threads at its first product at the latest
print("value", os.environ.get("OPENBLAS_NUM_THREADS"), "threads", len(os.listdir("/proc/self/task")), file=sys.stderr)
"""


def _probe(before: str = "", **env: str) -> tuple[str, int]:
    """What ``OPENBLAS_NUM_THREADS`` is in a process that ran a command, and how many threads it holds after a product."""
    clean = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    proc = subprocess.run([sys.executable, "-c", PROBE.format(before=before)], cwd=paths.ROOT, capture_output=True,
                          text=True, env={**clean, **env}, timeout=120, check=True)
    words = proc.stderr.strip().splitlines()[-1].split()
    return words[1], int(words[3])


def test_a_command_gives_the_grading_process_one_blas_thread():
    value, threads = _probe()
    assert value == "1"
    assert threads == 1  # no BLAS thread beside the main one (OpenBLAS would start one per core)


def test_a_value_the_user_set_is_kept():
    assert _probe(OPENBLAS_NUM_THREADS="2")[0] == "2"


def test_a_process_that_loaded_numpy_already_is_left_as_it_is():
    # A notebook's kernel: its numpy is the student's, and the variable would change nothing in it.
    assert _probe(before="import numpy")[0] == "None"


def test_the_doors_that_start_a_grading_process_set_it_before_the_harness_imports_numpy():
    script = entry.ENTRY_SOURCE
    assert script.index("settings.one_blas_thread()") < script.index("from autograder.gradescope.entry import")
    conftest = (paths.PACKAGE_DIR / "staff" / "handout_conftest.py").read_text(encoding="utf-8")
    configure = conftest[conftest.index("def pytest_configure"):]
    assert "settings.one_blas_thread()" in configure[:configure.index("\ndef ")]


def test_the_setting_is_listed_with_its_default():
    assert settings.GRADER_BLAS_THREADS in settings.ALL
    assert settings.GRADER_BLAS_THREADS.default == "1"
