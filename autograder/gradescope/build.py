"""Package the Gradescope autograder zip with ``otter generate``.

The zip holds our test files (flattened, as otter wants them), and as support files the
harness, the manifests and the expected values recorded from the reference (``expected``;
never the reference, its mistakes or fair variants), a driver notebook that otter executes instead of
the student's scripts, and an empty ``.OTTER_LOG`` that replaces any submitted one, so otter
never unpickles a student's log. On Gradescope, ``run_otter.py`` first moves every file that
is not one of the six modules out of the submission folder, so nothing else the student
uploaded can shadow a module that otter's kernel imports. The image's files (setup.sh,
run_autograder, the environment and the pins) are ours: see ``gradescope.image``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ..expected import records
from ..model import manifest, paths
from . import image
from .otter_bridge import DRIVER_NOTEBOOK, DRIVER_SOURCE, HARNESS_FOLDER

# The zip carries recorded expected values instead of what computes them: no reference, mistakes or fair variants,
# and none of the staff tools (recording, solutions, validation, handout) or staff commands.
LEFT_OUT = ("commands.staff", "staff")
SOLUTIONS = shutil.ignore_patterns(*paths.BYTECODE, "mistakes", "fair", records.SHIPPED_NAME)
EXECUTABLE = ("setup.sh", "run_autograder")
RUN_OTTER_PREFIX = f'''\
import sys as _sys
_sys.path.insert(0, "/autograder/source/files/{HARNESS_FOLDER}")
from autograder.gradescope.otter_bridge import prepare_run as _prepare_run
_prepare_run("/autograder/submission", "/autograder/quarantine", "/autograder/results")
del _sys.path[0]
'''


class BuildError(Exception):
    """``otter generate`` failed or is not installed, or the image's pins cannot be read here."""


def driver_notebook() -> dict:
    """The one-cell notebook otter executes: it exposes the sandboxed proxies."""
    return {
        "cells": [{"cell_type": "code", "execution_count": None, "id": "autograder-driver",
                   "metadata": {}, "outputs": [], "source": DRIVER_SOURCE}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def stage_build(stage: Path, assignment: manifest.Assignment) -> list[str]:
    """Lay out otter generate's inputs in ``stage``; return the support-file arguments."""
    tests = stage / "tests"
    tests.mkdir()
    for problem in assignment.problems:
        for path, _hidden in problem.test_files(include_hidden=True):
            shutil.copy(path, tests / f"{problem.module}_{path.stem}.py")
    harness = stage / HARNESS_FOLDER
    shutil.copytree(paths.PACKAGE_DIR, harness / "autograder", ignore=paths.package_without(*LEFT_OUT))
    shutil.copytree(paths.ASSIGNMENTS, harness / "assignments", ignore=SOLUTIONS)
    shutil.copy(paths.ROOT / "requirements.txt", harness / "requirements.txt")  # what student code may import (its marks)
    ship_expected(assignment, records.shipped_folder(harness / "assignments"))
    (stage / DRIVER_NOTEBOOK).write_text(json.dumps(driver_notebook(), indent=1), encoding="utf-8")
    (stage / ".OTTER_LOG").write_bytes(b"")
    config = {"points_possible": assignment.total_points, "show_hidden": True, "show_stdout": False, "print_summary": True}
    (stage / "otter_config.json").write_text(json.dumps(config, indent=2))
    return [HARNESS_FOLDER, DRIVER_NOTEBOOK, ".OTTER_LOG"]


def ship_expected(assignment: manifest.Assignment, folder: Path) -> None:
    """Write every problem's recorded expected values (public and hidden calls) into ``folder``."""
    records.refresh_cache(assignment.modules)  # records in a separate process: this one never imports torch
    for module in assignment.modules:
        records.cached_store(module).save(folder)


def image_files(assignment: manifest.Assignment) -> dict[str, str]:
    """The zip's top-level files that build the image and start each run, in place of otter's."""
    requirements = image.grading_requirements()
    try:
        pins = image.constraints(requirements)
    except image.ImageError as exc:
        raise BuildError(str(exc)) from None
    return {
        "setup.sh": image.setup_sh(requirements),
        "run_autograder": image.run_autograder(),
        "environment.yml": image.environment_yml(assignment.python),
        "requirements.txt": "\n".join(requirements) + "\n",
        "constraints.txt": "\n".join(pins) + "\n",
    }


def _patch(zip_path: Path, replacements: dict[str, str]) -> None:
    """Put our image files in place of otter's and add our preparation step (deadline, quarantine) to run_otter.py."""
    patched = zip_path.with_suffix(".tmp")
    with zipfile.ZipFile(zip_path) as src, zipfile.ZipFile(patched, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename in replacements:
                continue
            data = src.read(info)
            if info.filename == "run_otter.py":
                data = data.replace(b'if __name__ == "__main__":', RUN_OTTER_PREFIX.replace("\n", "\n    ").encode().join([b'if __name__ == "__main__":\n    ', b""]), 1)
            dst.writestr(info, data)
        for name, text in replacements.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100755 if name in EXECUTABLE else 0o100644) << 16
            dst.writestr(info, text, zipfile.ZIP_DEFLATED)
    patched.replace(zip_path)


def build_autograder_zip(out: Path) -> Path:
    """Build ``out`` (e.g. dist/autograder.zip) and return its path."""
    assignment = manifest.load()
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="autograder-build-") as tmp:
        stage = Path(tmp)
        support = stage_build(stage, assignment)
        replacements = image_files(assignment)
        cmd = [sys.executable, "-m", "otter", "generate", "-t", "tests", "-o", str(out), "-c", "otter_config.json",
               "--no-requirements", "--no-environment", "--python-version", assignment.python, *support]
        try:
            proc = subprocess.run(cmd, cwd=stage, capture_output=True, text=True, timeout=300)
        except FileNotFoundError:
            raise BuildError("otter-grader is not installed; run `make autograder` (it installs requirements-dev.txt)") from None
        if proc.returncode != 0:
            raise BuildError(f"otter generate failed:\n{proc.stdout}\n{proc.stderr}")
    _patch(out, replacements)
    return out
