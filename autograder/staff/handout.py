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

from ..expected import records
from ..grading.runner import load_tests
from ..model import manifest, paths
from ..model.manifest import Assignment
from ..sandbox import environment
from ..testkit.problem_helpers import support_path
from . import starter_notebook, templates

TOP = "attention-handout"
# The staff commands, the staff tools and the Gradescope adapter: a student has no use for them (no reference, no hidden
# tests).
LEFT_OUT = ("staff", "gradescope", *paths.staff_commands())
IMAGE = re.compile(r"\]\(([^)\s]+\.(?:png|jpg|jpeg|svg|gif))\)|src=\"([^\"]+\.(?:png|jpg|jpeg|svg|gif))\"")

README = """\
# {title}

{count} problems, one Python module each. Statements: `assignments/<module>/README.md`.
Your code goes in `student_template/<module>.py` (replace each `raise NotImplementedError`).
Public tests: {public} of the {total} points; hidden tests, run on Gradescope after you submit, carry the rest.

## Set up (once)

Python 3.10, 3.11, 3.12 or 3.13, on Linux, macOS or Windows. In this folder:

```sh
python3 -m venv .venv
source .venv/bin/activate          # Windows: .venv\\Scripts\\activate
pip install torch --index-url https://download.pytorch.org/whl/cpu   # Linux only: the CPU build (about 200 MB, not 2.7 GB of CUDA)
pip install -r requirements.txt    # numpy, torch, pyyaml, jinja2 (ranges: a torch you already have is kept)
```

If that line fails with "No matching distribution found for filelock" (or another of torch's dependencies: a proxy
or a mirror that carries torch's index only partly), take torch alone from that index and its dependencies from PyPI:

```sh
pip install torch --no-deps --index-url https://download.pytorch.org/whl/cpu
pip install -r requirements.txt    # brings filelock, sympy, ... from PyPI; the CPU torch is kept
```

Where that index cannot be reached at all, plain `pip install -r requirements.txt` works too, but on Linux PyPI's
torch is the CUDA build: about 5 GB of downloads and several minutes; Colab (torch already installed) avoids it.

On macOS and Windows skip the `--index-url` line: PyPI's torch is already the CPU build there
(on an Intel Mac, pip picks torch 2.2.2, the last built for it, and numpy 1.x: use Python 3.12 or older).
On Colab, or in a conda environment that already has torch and numpy, run only
`pip install -r requirements.txt`: the versions you have are kept.
For the notebook: `pip install jupyter matplotlib` (Colab has both).

## Check your work with the public tests (seconds, as often as you like)

```sh
python -m autograder check                              # every problem, files in student_template/
python -m autograder check student_template -p {first}   # one problem
```

In a notebook opened in this folder (`{notebook}` walks the problems):

```python
import autograder
autograder.check("{first}")    # one problem; autograder.check() for all of them
```

Each failure shows the call, the expected value, what came back and where they differ. The exit
status is 0 only when every public test passes. Your code runs in a separate process, so an
infinite loop or a crash in it is reported, and stopped, without ending the check (or the notebook).
When every public test passes the check says so; hidden tests are run after you submit, and
passing the public tests does not guarantee full marks.

With pytest installed (`pip install pytest`), the same public tests run through the same check, one pytest test
per public test; what your code prints is shown at the end:

```sh
pytest                                              # every problem, on student_template/
pytest assignments/{first}/tests/public.py          # one problem
pytest --submission my_work/                        # other files: a folder (or a zip) in this folder
pytest --submission=/elsewhere/my_work.zip          # with "=" when it is outside this folder
```

Run pytest from this folder (it finds the tests through `conftest.py` here). For a folder or zip outside this
folder write `--submission=PATH`: pytest reads the words after `--submission ` as a test path before it knows the option.

Run every command from this folder (the one holding `autograder/`, `student_template/` and this README):
from anywhere else, `python -m autograder` says "No module named autograder". `cd` back here first.

## What your code may import

The Python standard library, `numpy` and `torch`: that is all the grading environment has. The check
refuses any other import (scipy, say, even if it is installed on your machine) with the same message
grading gives: "`scipy` is not available where your work is graded; use numpy or torch". Grading runs
on a CPU: no `.cuda()`. Your functions must not modify their arguments (no `X += 1` on a tensor
passed in): a test whose call changes an argument fails.

## Submit

```sh
python -m autograder submit       # runs the check, lists what still fails, writes submission.zip (the {count} files)
make submission                   # the same
```

In the notebook: `autograder.submit()`. Upload `submission.zip` to Gradescope. Only these {count} files,
{files}, are read, wherever they are in what you upload (a zip of this whole folder works too, if each name appears once);
anything else is ignored and listed, and a near miss such as `{first} (1).py` is pointed out.
"""

STUB_HEADER = ("# Problem stub: replace each `raise NotImplementedError` (TODO) with your code. Check it with "
               "`python -m autograder check`, or autograder.check() in the notebook.\n")

MAKEFILE = """\
# `make submission`: check the modules of student_template/, then zip them for Gradescope.
PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)

.PHONY: submission check

submission:
\t$(PYTHON) -m autograder submit student_template --out submission.zip

check:
\t$(PYTHON) -m autograder check
"""


def student_requirements() -> str:
    """The students' requirements, each package student code may import marked as in the grading image's requirements
    (``sandbox.environment``): the handout's check then allows what grading allows, read from the same kind of line."""
    lines = []
    for line in (paths.ROOT / "requirements-student.txt").read_text(encoding="utf-8").splitlines():
        name = environment.marked([f"{line}  {environment.MARK}"])
        if name and name[0] in environment.student_libraries() and not line.rstrip().endswith(environment.MARK):
            line = f"{line}  {environment.MARK}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def record_public_expected(assignment: Assignment, folder: Path) -> None:
    """Write into ``folder`` the expected values of the public tests: the staff cache's records of public calls only."""
    records.refresh_cache(assignment.modules)
    for module in assignment.modules:
        records.cached_store(module).save(folder, public_only=True)


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
    hidden = sum(manifest.points_in(path) for path in problem.hidden_tests)
    if (
        hidden
    ):  # the hidden tests stay behind, their points do not: the self-check says what share the public ones carry
        data["hidden_points"] = hidden
    if (
        problem.callables is not None
    ):  # what the public tests may name (Named("...")): the grader sends it to the worker
        shutil.copy(problem.callables, folder / problem.callables.name)
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


def _public_points(assignment: Assignment) -> str:
    """The points the public tests carry, over all problems."""
    return f"{sum(s.points for p in assignment.problems for s in load_tests(p, include_hidden=False)):g}"


def stage_handout(stage: Path, assignment: Assignment) -> None:
    """Lay out the handout's files in ``stage``."""
    shutil.copytree(paths.PACKAGE_DIR, stage / "autograder", ignore=paths.package_without(*LEFT_OUT))
    (stage / "assignments").mkdir()
    shutil.copy(paths.ASSIGNMENT_MANIFEST, stage / "assignments" / "assignment.yaml")
    for problem in assignment.problems:
        _write_problem(problem, stage)
    record_public_expected(assignment, records.shipped_folder(stage / "assignments"))
    (stage / "student_template").mkdir()
    for module in assignment.modules:
        stub = (paths.TEMPLATES / f"{module}.py").read_text(encoding="utf-8").replace(templates.HEADER, STUB_HEADER, 1)
        (stage / "student_template" / f"{module}.py").write_text(stub, encoding="utf-8")
    (stage / "requirements.txt").write_text(student_requirements(), encoding="utf-8")
    shutil.copy(Path(__file__).with_name("handout_conftest.py"), stage / "conftest.py")
    starter_notebook.write(assignment, stage / starter_notebook.NAME)
    files = ", ".join(f"`{m}.py`" for m in assignment.modules)
    (stage / "README.md").write_text(
        README.format(
            title=assignment.title,
            first=assignment.modules[0],
            files=files,
            count=len(assignment.problems),
            notebook=starter_notebook.NAME,
            public=_public_points(assignment),
            total=f"{assignment.total_points:g}",
        ),
        encoding="utf-8",
    )
    (stage / "Makefile").write_text(MAKEFILE, encoding="utf-8")


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
