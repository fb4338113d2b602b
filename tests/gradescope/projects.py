"""Zips built from a private copy of the project: fewer problems, shorter limits."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from autograder.model import paths

COPIED = ("autograder", "reference", "assignments", "requirements.txt", "requirements-dev.txt")


def build_zip(dest: Path, problems: list[str] | None = None, call_seconds: float | None = None) -> Path:
    """The autograder zip of a copy of the project keeping only ``problems``, each call limited to ``call_seconds``."""
    project = dest / "project"
    for name in COPIED:
        src = paths.ROOT / name
        if src.is_dir():
            shutil.copytree(src, project / name)  # with its bytecode: the build in the copy need not compile again
        else:
            shutil.copy(src, project / name)
    manifest_path = project / "assignments" / "assignment.yaml"
    assignment = yaml.safe_load(manifest_path.read_text())
    kept = problems or assignment["problems"]
    for module in kept:
        problem_path = project / "assignments" / module / "problem.yaml"
        problem = yaml.safe_load(problem_path.read_text())
        if call_seconds:
            problem["limits"] = dict(problem.get("limits") or {}, call_seconds=call_seconds)
        problem_path.write_text(yaml.safe_dump(problem))
    manifest_path.write_text(yaml.safe_dump(dict(assignment, problems=kept)))
    out = dest / "autograder.zip"
    env = dict(os.environ, AUTOGRADER_ROOT=str(project))
    proc = subprocess.run([sys.executable, "-m", "autograder", "build", "--out", str(out)], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out
