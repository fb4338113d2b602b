"""The import guard of a module's process: the student's own imports only, judged by what the grading environment has."""

import subprocess
import sys
import textwrap

from autograder.sandbox.worker import imports

GUARDED = """
import sys
sys.path.insert(0, {worker!r})
import imports
imports.install({folder!r}, ["numpy", "torch"])
sys.path.insert(0, {folder!r})
import importlib.util
spec = importlib.util.spec_from_file_location("student", {folder!r} + "/student.py")
module = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(module)
    print("imported")
except ModuleNotFoundError as exc:
    print("refused:", exc)
"""


def run_student(tmp_path, source, helper=""):
    folder = tmp_path / f"submission-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    (folder / "student.py").write_text(textwrap.dedent(source))
    if helper:
        (folder / "helper.py").write_text(helper)
    code = GUARDED.format(worker=str(imports.__file__).rsplit("/", 1)[0], folder=str(folder))
    return subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=300).stdout.strip()


def test_the_standard_library_numpy_torch_and_their_own_modules_are_allowed(tmp_path):
    source = """
        import json, math, collections.abc
        import numpy as np
        import torch
        import torch.nn.functional as F
        from helper import VALUE
        x = F.elu(torch.zeros(2)) + np.ones(2).sum() + VALUE
    """
    assert run_student(tmp_path, source, helper="VALUE = 1\n") == "imported"


def test_a_package_installed_here_but_not_where_grading_runs_is_refused_with_the_grading_words(tmp_path):
    assert run_student(tmp_path, "import yaml\n") == ("refused: `yaml` is not available where your work is graded; "
                                                      "use numpy or torch")


def test_a_module_already_loaded_by_the_worker_or_asked_for_through_importlib_is_refused(tmp_path):
    assert run_student(tmp_path, "import imports\n").startswith("refused: `imports`")  # the worker's own, in sys.modules
    assert run_student(tmp_path, "import importlib\nimportlib.import_module('yaml.constructor')\n").startswith("refused: `yaml`")


def test_what_torch_imports_for_itself_is_not_judged(tmp_path):
    # torch's lazy imports of its own optional dependencies run in torch's files, not the student's.
    source = "import torch\nx = torch.linalg.solve(torch.eye(2), torch.ones(2))\nimport torch.distributions\n"
    assert run_student(tmp_path, source) == "imported"
