"""Package the Gradescope autograder zip with ``otter generate``.

The zip holds our test files (flattened, as otter wants them), and as support files the
harness, the manifests and the expected values recorded from the reference (``expected``;
never the reference, its mistakes or fair variants), and an empty notebook for otter to find (a submitted
``.OTTER_LOG`` is moved aside by the otter plugin before otter would read it, so otter never unpickles a student's log).
Its entry point is ours: ``run_autograder`` starts ``run_grading.py`` (``gradescope.entry``), the one grading
run, which writes results.json as ``grade`` does; ``otter run`` reaches the same entry point through the
plugin listed in its otter_config.json (``gradescope.otter_plugin``). The image's files (setup.sh,
run_autograder, the environment and the pins) are ours too: see ``gradescope.image``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from ..expected import records
from ..model import manifest, paths
from . import image
from .entry import ENTRY_SOURCE
from .otter_bridge import DRIVER_NOTEBOOK, ENTRY_SCRIPT, HARNESS_FOLDER, OTTER_PLUGIN

# The zip carries recorded expected values instead of what computes them: no reference, mistakes or fair variants,
# and none of the staff tools (recording, solutions, validation, handout) or staff commands.
LEFT_OUT = ("staff", *paths.staff_commands())
SOLUTIONS = shutil.ignore_patterns(*paths.BYTECODE, "mistakes", "fair", records.SHIPPED_NAME)
EXECUTABLE = ("setup.sh", "run_autograder")


class BuildError(Exception):
    """``otter generate`` failed or is not installed, or the image's pins cannot be read here."""


def driver_notebook() -> dict:
    """The notebook otter looks for in the submission folder; under ``otter run`` the plugin gives its kernel an empty
    one."""
    note = (
        "Grading runs in the zip's entry point (run_grading.py, autograder/gradescope/entry.py), not in this notebook: "
        "otter's plugin (autograder/gradescope/otter_plugin.py) hands `otter run` over to it."
    )
    return {
        "cells": [{"cell_type": "markdown", "id": "autograder-driver", "metadata": {}, "source": note}],
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
    shutil.copy(
        paths.ROOT / "requirements.txt", harness / "requirements.txt"
    )  # what student code may import (its marks)
    ship_expected(assignment, records.shipped_folder(harness / "assignments"))
    (stage / DRIVER_NOTEBOOK).write_text(json.dumps(driver_notebook(), indent=1), encoding="utf-8")
    config = {
        "points_possible": assignment.total_points,
        "show_hidden": True,
        "show_stdout": False,
        "print_summary": True,
        "plugins": [OTTER_PLUGIN],
    }
    (stage / "otter_config.json").write_text(json.dumps(config, indent=2))
    return [HARNESS_FOLDER, DRIVER_NOTEBOOK]


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
        ENTRY_SCRIPT: ENTRY_SOURCE.format(harness=HARNESS_FOLDER),
        "environment.yml": image.environment_yml(assignment.python),
        "requirements.txt": "\n".join(requirements) + "\n",
        "constraints.txt": "\n".join(pins) + "\n",
    }


def _patch(zip_path: Path, replacements: dict[str, str]) -> None:
    """Put our image files and entry point in place of otter's."""
    patched = zip_path.with_suffix(".tmp")
    with zipfile.ZipFile(zip_path) as src, zipfile.ZipFile(patched, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename in replacements:
                continue
            dst.writestr(info, src.read(info))
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
        env = dict(os.environ, PYTHONPATH=str(stage / HARNESS_FOLDER))  # otter generate imports the plugins it lists
        try:
            proc = subprocess.run(cmd, cwd=stage, env=env, capture_output=True, text=True, timeout=300)
        except FileNotFoundError:
            raise BuildError(
                "otter-grader is not installed; run `make autograder` (it installs requirements-dev.txt)"
            ) from None
        if proc.returncode != 0:
            raise BuildError(f"otter generate failed:\n{proc.stdout}\n{proc.stderr}")
    _patch(out, replacements)
    return out
