"""Everything otter-grader needs of the zip, in one place: what lets ``otter run -a autograder.zip SUB`` grade a
submission with the zip's own entry point.

``otter generate`` makes the zip (``generate``: the handout's contract says so); ``build`` then puts its own image
files and entry point in place of otter's. otter takes no part in grading on Gradescope: ``run_autograder`` starts the
zip's entry point (``entry.py``). ``otter run`` stays a way for staff to grade one submission with the zip as uploaded
(docs/gradescope.md). It never executes ``run_autograder``: otter's runner, in otter's own process, reads
``otter_config.json``, copies the zip's ``files/`` into the submission folder and its ``tests/`` beside them, runs the
folder's one notebook and the test files in a Jupyter kernel (one results.json entry per test *file*), and renders
results.json itself. So the zip carries, for otter only (``stage_inputs``): ``otter_config.json`` listing this
module's plugin, an empty notebook in ``files/`` (otter's runner refuses a folder without one) and an empty ``tests/``
folder (otter's runner copies it, so it must be there; it finds no test in it).

The plugin's ``before_grading`` runs the zip's entry point (``source/run_grading.py`` in a separate Python: the same
command as Gradescope's ``run_autograder``), which writes results.json with the one grading run, then moves every file
of the student's out of the folder where otter's kernel runs next, so the kernel runs an empty notebook beside nothing
of the student's (a submitted ``.OTTER_LOG``, a pickle otter would load, goes too); ``after_grading`` makes otter write
the entry point's results.json as it is. So ``otter run`` gives, entry for entry, what Gradescope and ``grade`` give.

What otter itself cannot take: a submission holding a notebook of its own (otter chooses the one notebook to run, and
refuses two, before any plugin starts) or a file named ``tests`` at its top (otter replaces that folder first).
``otter run`` then stops with otter's own error and no results.json; ``grade`` and Gradescope grade them as any other.

otter imports its plugins by name in its own process, before the zip's harness is on any path: the plugin is imported
from this project's ``autograder`` (run ``otter run`` where it imports: after ``make autograder``, or from the project's
folder). Nothing else imports otter: the plugin's classes are made when otter asks this module for them, so building
the zip needs no otter.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .entry import ENTRY_SCRIPT

CONFIG_FILE = "otter_config.json"
SUPPORT_FOLDER = "files"  # otter copies what it holds into the submission folder
TESTS_FOLDER = "tests"  # otter copies it beside them and runs the test files it holds: the zip's is empty
# The harness: in otter's support folder, as otter's zips keep support files; Gradescope's run reads it from source/.
HARNESS_NAME = "_autograder_harness"
HARNESS = f"{SUPPORT_FOLDER}/{HARNESS_NAME}"
# The one notebook otter's runner insists on running (nothing in it: the plugin has graded before it runs).
DRIVER_NOTEBOOK = "grade_submission.ipynb"
PLUGIN = f"{__name__}.GradingRun"  # as otter_config.json lists it
# What otter puts in the submission folder; the plugin moves everything else (the student's files) aside.
SHIPPED = {HARNESS_NAME, DRIVER_NOTEBOOK, TESTS_FOLDER, "__init__.py"}


# otter generate zips no empty folder, but otter run's runner copies this one and fails when it is missing.
EMPTY_FOLDERS = (f"{TESTS_FOLDER}/",)


class GenerateError(Exception):
    """``otter generate`` is not installed or failed."""


def stage_inputs(stage: Path, points: float) -> None:
    """Lay out in ``stage``, beside the harness (``stage / HARNESS_NAME``), what ``generate`` hands otter: its config,
    an empty tests folder and the driver notebook."""
    config = {"points_possible": points, "show_hidden": True, "show_stdout": False, "print_summary": True,
              "plugins": [PLUGIN]}
    (stage / CONFIG_FILE).write_text(json.dumps(config, indent=2), encoding="utf-8")
    (stage / TESTS_FOLDER).mkdir()
    (stage / DRIVER_NOTEBOOK).write_text(json.dumps(driver_notebook(), indent=1), encoding="utf-8")


def generate(stage: Path, out: Path, python_version: str) -> None:
    """Have ``otter generate`` write the zip ``out`` from ``stage`` (laid out by ``stage_inputs``); otter's image files
    in it are replaced afterwards (``build``)."""
    cmd = [sys.executable, "-m", "otter", "generate", "-t", TESTS_FOLDER, "-o", str(out), "-c", CONFIG_FILE,
           "--no-requirements", "--no-environment", "--python-version", python_version, HARNESS_NAME, DRIVER_NOTEBOOK]
    env = dict(os.environ, PYTHONPATH=str(stage / HARNESS_NAME))  # otter generate imports the plugin it lists
    proc = subprocess.run(cmd, cwd=stage, env=env, capture_output=True, text=True, timeout=300)
    if "No module named otter" in proc.stderr:
        raise GenerateError("otter-grader is not installed; run `make autograder` (it installs requirements-dev.txt)")
    if proc.returncode != 0 or not out.is_file():
        raise GenerateError(f"otter generate failed:\n{proc.stdout}\n{proc.stderr}")


def driver_notebook() -> dict:
    """An empty notebook but for a note saying where grading happens."""
    note = (
        "Grading runs in the zip's entry point (run_grading.py, autograder/gradescope/entry.py), not in this notebook: "
        "the otter plugin of autograder/gradescope/otter_run.py hands `otter run` over to it."
    )
    return {
        "cells": [{"cell_type": "markdown", "id": "autograder-driver", "metadata": {}, "source": note}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def command(autograder_zip: Path, submission: Path, out_dir: Path) -> list[str]:
    """``otter run`` of ``submission`` with ``autograder_zip``, writing results.json in ``out_dir``; run it where
    ``autograder`` imports."""
    return [sys.executable, "-m", "otter", "run", "-a", str(autograder_zip), "-o", str(out_dir), str(submission)]


def __getattr__(name: str) -> Any:
    """The plugin's classes, made (importing otter) when otter imports them by name."""
    classes = _plugin_classes()
    if name in classes:
        return classes[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.cache
def _plugin_classes() -> dict[str, type]:
    from otter.plugins import AbstractOtterPlugin
    from otter.test_files import GradingResults

    class GradingRun(AbstractOtterPlugin):
        """Hands ``otter run``'s grading over to the zip's entry point."""

        @property
        def root(self) -> Path:
            """The folder otter laid out like /autograder (``submission_path`` is the notebook in its submission
            folder)."""
            return Path(self.submission_path).resolve().parent.parent

        def before_grading(self, config: Any) -> None:
            # The zip's own files, not a checkout's.
            env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_ROOT")}
            subprocess.run([sys.executable, "-I", str(self.root / "source" / ENTRY_SCRIPT)], cwd=self.root, env=env,
                           check=False)
            submission, quarantine = self.root / "submission", self.root / "quarantine"
            for entry in sorted(submission.iterdir()):  # read by the entry point; none stays where the kernel runs
                if entry.name not in SHIPPED:
                    quarantine.mkdir(exist_ok=True)
                    shutil.move(str(entry), str(quarantine / entry.name))

        def before_execution(self, submission: Any) -> Any:
            import nbformat

            return nbformat.v4.new_notebook()

        def after_grading(self, results: GradingResults) -> None:
            path = self.root / "results" / "results.json"
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                data = {
                    "score": 0,
                    "tests": [],
                    "output": f"The autograder wrote no readable results.json ({type(exc).__name__}: {exc}).",
                }
            results.__class__ = GradingRunResults
            results.gradescope = data

    class GradingRunResults(GradingResults):
        """otter's results, rendered as the entry point's results.json (otter then writes exactly that)."""

        gradescope: dict

        def to_gradescope_dict(self, ag_config: Any) -> dict[str, Any]:
            return self.gradescope

        @property
        def total(self) -> float:
            return float(self.gradescope.get("score", 0))

        @property
        def possible(self) -> float:
            return float(sum(t.get("max_score", 0) or 0 for t in self.gradescope.get("tests", [])))

    classes = {"GradingRun": GradingRun, "GradingRunResults": GradingRunResults}
    for cls in classes.values():  # pickled by name (otter keeps its results with dill): found through __getattr__
        cls.__module__, cls.__qualname__ = __name__, cls.__name__
    return classes
