"""``python -m autograder handout``: the zip students start from.

It holds the stubs, the statements (and the images they show), the public tests, and the
self-check runner, but no reference, no hidden tests and no mistakes corpus. Public tests
compare with the reference, so the expected values of their calls (the reference's outputs and
the known mistakes' outputs for hints) ship instead: the staff cache's records of public calls.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import zipfile
from pathlib import Path

import yaml

from . import expected, manifest, paths
from .manifest import Assignment
from .problem_support import support_path

TOP = "attention-handout"
STAFF_ONLY = ("build.py", "otter_bridge.py", "validation.py", "validate.py", "grade_all.py", "batch.py", "handout.py",
              "csv_report.py", "summary.py", "gradescope_export.py", "roster.py", "upload_csv.py", "class_stats.py", "plots.py",
              "summary_html.py", "regrade_diff.py", "gradescope", "emulate.py", "tools", "recording.py", "__pycache__", "*.pyc")
IMAGE = re.compile(r"\]\(([^)\s]+\.(?:png|jpg|jpeg|svg|gif))\)|src=\"([^\"]+\.(?:png|jpg|jpeg|svg|gif))\"")

README = """\
# {title}

Six problems, one Python module each. Statements: `assignments/<module>/README.md`.
Your code goes in `student_template/<module>.py` (replace each `raise NotImplementedError`).

## Set up (once)

```sh
python3.11 -m venv .venv
source .venv/bin/activate          # Windows: .venv\\Scripts\\activate
pip install -r requirements.txt    # numpy, torch (CPU), pyyaml
```

## Check your work with the public tests (seconds, as often as you like)

```sh
python -m autograder check                              # every problem, files in student_template/
python -m autograder check student_template -p {first}   # one problem
```

Each failure shows the call, the expected value, what came back and where they differ. The exit
status is 0 only when every public test passes. Hidden tests are run after you submit; passing
the public tests does not guarantee full marks.

## Submit

```sh
make submission        # writes submission.zip with the six module files from student_template/
```

Without `make`: zip the six files {files} (at the top level of the zip) yourself.
Upload `submission.zip` to Gradescope. Only these six files are read; anything else is ignored.
"""

MAKEFILE = """\
# `make submission`: zip the six modules of student_template/ for Gradescope.
PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)
MODULES := {modules}

.PHONY: submission check

submission:
\t$(PYTHON) -c "import sys, zipfile; z = zipfile.ZipFile('submission.zip', 'w', zipfile.ZIP_DEFLATED); [z.write(f'student_template/{{m}}.py', f'{{m}}.py') for m in sys.argv[1:]]; z.close()" $(MODULES)
\t@echo "wrote submission.zip; upload it to Gradescope"

check:
\t$(PYTHON) -m autograder check
"""


def record_public_expected(assignment: Assignment, folder: Path) -> None:
    """Write into ``folder`` the expected values of the public tests: the staff cache's records of public calls only."""
    expected.refresh_cache(assignment.modules)
    for module in assignment.modules:
        expected.cached_store(module).save(folder, public_only=True)


def _images(readme: Path) -> list[Path]:
    found = []
    for match in IMAGE.finditer(readme.read_text(encoding="utf-8")):
        target = (readme.parent / (match.group(1) or match.group(2))).resolve()
        if target.is_file() and target.is_relative_to(paths.ROOT):
            found.append(target)
    return found


def _write_problem(problem: manifest.Problem, stage: Path) -> None:
    folder = stage / "assignments" / problem.module
    (folder / "tests").mkdir(parents=True)
    data = yaml.safe_load((problem.folder / "problem.yaml").read_text(encoding="utf-8"))
    public = []
    for path in problem.public_tests:
        rel = path.relative_to(problem.folder.resolve())
        shutil.copy(path, folder / rel)
        public.append(str(rel))
    data["tests"] = {"public": public, "hidden": []}
    support = support_path(problem.module)
    if support.is_file():  # helpers the public tests share with the hidden ones (no hidden inputs in it)
        shutil.copy(support, folder / "tests" / support.name)
    (folder / "problem.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    readme = problem.folder / "README.md"
    if readme.is_file():
        shutil.copy(readme, folder / "README.md")
        for image in _images(readme):
            target = stage / image.relative_to(paths.ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(image, target)


def stage_handout(stage: Path, assignment: Assignment) -> None:
    """Lay out the handout's files in ``stage``."""
    shutil.copytree(paths.PACKAGE_DIR, stage / "autograder", ignore=shutil.ignore_patterns(*STAFF_ONLY))
    (stage / "assignments").mkdir()
    shutil.copy(paths.ASSIGNMENT_MANIFEST, stage / "assignments" / "assignment.yaml")
    for problem in assignment.problems:
        _write_problem(problem, stage)
    record_public_expected(assignment, expected.shipped_folder(stage / "assignments"))
    (stage / "student_template").mkdir()
    for module in assignment.modules:
        shutil.copy(paths.TEMPLATES / f"{module}.py", stage / "student_template" / f"{module}.py")
    shutil.copy(paths.ROOT / "requirements.txt", stage / "requirements.txt")
    files = ", ".join(f"`{m}.py`" for m in assignment.modules)
    (stage / "README.md").write_text(README.format(title=assignment.title, first=assignment.modules[0], files=files), encoding="utf-8")
    (stage / "Makefile").write_text(MAKEFILE.format(modules=" ".join(assignment.modules)), encoding="utf-8")


def build_handout(out: Path) -> Path:
    """Build the handout zip at ``out`` (every file under one top-level folder) and return its path."""
    assignment = manifest.load()
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="autograder-handout-") as tmp:
        stage = Path(tmp) / TOP
        stage.mkdir()
        stage_handout(stage, assignment)
        partial = out.with_suffix(".partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(stage.rglob("*")):
                if path.is_file():
                    zf.write(path, f"{TOP}/{path.relative_to(stage).as_posix()}")
        partial.replace(out)
    return out
