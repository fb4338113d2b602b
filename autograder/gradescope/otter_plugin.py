"""``otter run -a autograder.zip SUB``'s way into the zip's entry point: an otter plugin listed in the zip's
otter_config.json.

Why a plugin: ``otter run`` never executes the zip's ``run_autograder``; it calls otter's own runner in its process,
which executes one notebook in a Jupyter kernel, runs the test files there (one results.json entry per test *file*,
judged test by test) and renders results.json itself. The plugin's events replace each of those steps without
patching otter: ``before_grading`` runs the zip's entry point (``entry.main``, in a separate Python, the same
command as Gradescope's ``run_autograder``), which writes results.json with the one grading run, then leaves otter's
kernel nothing to run (no test file, an empty notebook, the submission's files moved aside); ``after_grading`` makes
otter's results render as the entry point's results.json. So ``otter run`` gives, entry for entry, what Gradescope
and ``grade`` give.

What otter itself cannot take: a submission holding a notebook of its own (otter chooses the one notebook to run,
and refuses two, before any plugin starts) or a file named ``tests`` at its top (otter replaces that folder first).
``otter run`` then stops with otter's own error and no results.json; ``grade`` and Gradescope (whose ``run_autograder``
starts the entry point without otter's runner) grade them as any other.

Otter imports plugins by name in its own process, before the zip's harness is on any path: this module is imported
from this project's ``autograder`` package (run ``otter run`` from the project's folder, or with it on PYTHONPATH).
It only starts the zip's own entry point and reads what it wrote: the grading is the zip's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from otter.plugins import AbstractOtterPlugin
from otter.test_files import GradingResults

from .otter_bridge import ENTRY_SCRIPT, SHIPPED


class GradingRun(AbstractOtterPlugin):
    """Hands ``otter run``'s grading over to the zip's entry point."""

    @property
    def root(self) -> Path:
        """The folder otter laid out like /autograder (``submission_path`` is the notebook in its submission folder)."""
        return Path(self.submission_path).resolve().parent.parent

    def before_grading(self, config: Any) -> None:
        env = {
            k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADER_ROOT")
        }  # the zip's own files, not a checkout's
        subprocess.run(
            [sys.executable, "-I", str(self.root / "source" / ENTRY_SCRIPT)], cwd=self.root, env=env, check=False
        )
        submission, quarantine = self.root / "submission", self.root / "quarantine"
        for test in (submission / "tests").glob("*.py"):  # graded by the entry point; otter's kernel runs none
            test.unlink()
        for entry in sorted(
            submission.iterdir()
        ):  # read by the entry point; nothing of the student's stays where the kernel runs
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
