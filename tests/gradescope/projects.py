"""Zips built from a private copy of the project (fewer problems, shorter limits) and the submissions the emulation tests grade."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from autograder import paths

COPIED = ("autograder", "reference", "assignments", "requirements.txt", "requirements-dev.txt")


def build_zip(dest: Path, problems: list[str] | None = None, call_seconds: float | None = None) -> Path:
    """The autograder zip of a copy of the project keeping only ``problems``, each call limited to ``call_seconds``."""
    project = dest / "project"
    for name in COPIED:
        src = paths.ROOT / name
        if src.is_dir():
            shutil.copytree(src, project / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(src, project / name)
    manifest_path = project / "assignments" / "assignment.yaml"
    assignment = yaml.safe_load(manifest_path.read_text())
    kept = problems or assignment["problems"]
    total = 0.0
    for module in kept:
        problem_path = project / "assignments" / module / "problem.yaml"
        problem = yaml.safe_load(problem_path.read_text())
        problem["limits"]["call_seconds"] = call_seconds or problem["limits"]["call_seconds"]
        problem_path.write_text(yaml.safe_dump(problem))
        total += problem["points"]
    manifest_path.write_text(yaml.safe_dump(dict(assignment, problems=kept, total_points=total)))
    out = dest / "autograder.zip"
    env = dict(os.environ, AUTOGRADER_ROOT=str(project))
    proc = subprocess.run([sys.executable, "-m", "autograder", "build", "--out", str(out)], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out


def public_functions(module: str) -> list[str]:
    tree = ast.parse((paths.REFERENCE / f"{module}.py").read_text())
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


def submission(dest: Path, overrides: dict[str, str]) -> Path:
    """The reference, with every public function of each module in ``overrides`` replaced by the given body."""
    dest.mkdir(parents=True)
    for source in paths.REFERENCE.glob("*.py"):
        text = source.read_text()
        body = overrides.get(source.stem)
        if body is not None:
            text += "\n\nimport os, time\nimport numpy as np\n" + "".join(
                f"\n\ndef {name}(*args, **kwargs):\n" + body for name in public_functions(source.stem))
        (dest / source.name).write_text(text)
    return dest


HANG = "    while True:\n        pass\n"
SLEEP = "    time.sleep(10**6)\n"
# Allocates (and touches) all the memory its limit allows, in 32 MB and then 1 MB steps.
HOG = ("    hoard = []\n    for step in (1 << 22, 1 << 17):\n        try:\n            while True:\n                hoard.append(np.ones(step))\n"
       "        except MemoryError:\n            pass\n    return None\n")
# Leaves 200 sleeping children of the worker behind (once per module: the first call).
SPAWN = ("    if not globals().get('_spawned'):\n        globals()['_spawned'] = True\n        for _ in range(200):\n"
         "            if os.fork() == 0:\n                time.sleep(1000)\n                os._exit(0)\n    return None\n")
