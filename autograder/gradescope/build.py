"""Write the Gradescope autograder zip.

What it holds: the image's files (setup.sh, run_autograder, the environment and the pins: ``gradescope.image``); the
entry point ``run_grading.py`` (``gradescope.entry``), which ``run_autograder`` starts: the one grading run, writing
results.json as ``grade`` does; the harness, the manifests, the test files and the expected values recorded from the
reference (never the reference, its mistakes or fair variants, nor the staff tools); and the few files that only
``otter run`` reads (``gradescope.otter_run``). The zip is written here rather than by ``otter generate``, whose
templates would all be replaced: what otter needs of it is three small members.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from ..expected import records
from ..model import manifest, paths
from . import image, otter_run
from .entry import ENTRY_SCRIPT, ENTRY_SOURCE

# The zip carries recorded expected values instead of what computes them: no reference, mistakes or fair variants,
# and none of the staff tools (recording, solutions, validation, handout) or staff commands.
LEFT_OUT = ("commands.staff", "staff")
SOLUTIONS = shutil.ignore_patterns(*paths.BYTECODE, "mistakes", "fair", records.SHIPPED_NAME)
EXECUTABLE = ("setup.sh", "run_autograder")


class BuildError(Exception):
    """The image's pins cannot be read here."""


def stage_zip(stage: Path, assignment: manifest.Assignment) -> None:
    """Lay out in ``stage`` every file of the zip."""
    harness = stage / otter_run.HARNESS
    shutil.copytree(paths.PACKAGE_DIR, harness / "autograder", ignore=paths.package_without(*LEFT_OUT))
    shutil.copytree(paths.ASSIGNMENTS, harness / "assignments", ignore=SOLUTIONS)
    shutil.copy(paths.ROOT / "requirements.txt", harness / "requirements.txt")  # what student code may import
    ship_expected(assignment, records.shipped_folder(harness / "assignments"))
    (stage / otter_run.TESTS_FOLDER).mkdir()
    for name, text in {**image_files(assignment), **otter_run.members(assignment.total_points)}.items():
        path = stage / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        path.chmod(0o755 if name in EXECUTABLE else 0o644)


def ship_expected(assignment: manifest.Assignment, folder: Path) -> None:
    """Write every problem's recorded expected values (public and hidden calls) into ``folder``."""
    records.refresh_cache(assignment.modules)  # records in a separate process: this one never imports torch
    for module in assignment.modules:
        records.cached_store(module).save(folder)


def image_files(assignment: manifest.Assignment) -> dict[str, str]:
    """The zip's top-level files that build the image and start each run."""
    requirements = image.grading_requirements()
    try:
        pins = image.constraints(requirements)
    except image.ImageError as exc:
        raise BuildError(str(exc)) from None
    return {
        "setup.sh": image.setup_sh(requirements),
        "run_autograder": image.run_autograder(),
        ENTRY_SCRIPT: ENTRY_SOURCE.format(harness=otter_run.HARNESS),
        "environment.yml": image.environment_yml(assignment.python),
        "requirements.txt": "\n".join(requirements) + "\n",
        "constraints.txt": "\n".join(pins) + "\n",
    }


def write_zip(stage: Path, out: Path) -> None:
    """Zip ``stage`` into ``out``: every folder (an empty one too) and file, with its mode."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for folder, dirs, files in os.walk(stage):
            dirs.sort()
            for name in [*dirs, *sorted(files)]:
                path = Path(folder) / name
                zf.write(path, path.relative_to(stage).as_posix())


def build_autograder_zip(out: Path) -> Path:
    """Build ``out`` (e.g. dist/autograder.zip) and return its path."""
    assignment = manifest.load()
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="autograder-build-") as tmp:
        stage = Path(tmp)
        stage_zip(stage, assignment)
        partial = out.with_name(out.name + ".partial")  # a failed build leaves no half-written zip at ``out``
        write_zip(stage, partial)
        partial.replace(out)
    return out
