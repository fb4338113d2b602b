"""Build the Gradescope autograder zip: ``otter generate`` makes it (``gradescope.otter_run``), then ours replace
otter's image files.

What it holds: the image's files (setup.sh, run_autograder, the environment and the pins: ``gradescope.image``); the
entry point ``run_grading.py`` (``gradescope.entry``), which ``run_autograder`` starts: the one grading run, writing
results.json as ``grade`` does; the harness, the manifests, the test files and the expected values recorded from the
reference (never the reference, its mistakes or fair variants, nor the staff tools); and the few files that only
``otter run`` reads. Every member is deflated (otter stores them uncompressed).
"""

from __future__ import annotations

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
LEFT_OUT = ("staff", *paths.staff_commands())
SOLUTIONS = shutil.ignore_patterns(*paths.BYTECODE, "mistakes", "fair", records.SHIPPED_NAME)
EXECUTABLE = ("setup.sh", "run_autograder")


class BuildError(Exception):
    """``otter generate`` failed or is not installed, or the image's pins cannot be read here."""


def stage_harness(harness: Path, assignment: manifest.Assignment) -> None:
    """Copy into ``harness`` the grading code, the manifests and test files, and the recorded expected values."""
    shutil.copytree(paths.PACKAGE_DIR, harness / "autograder", ignore=paths.package_without(*LEFT_OUT))
    shutil.copytree(paths.ASSIGNMENTS, harness / "assignments", ignore=SOLUTIONS)
    shutil.copy(paths.ROOT / "requirements.txt", harness / "requirements.txt")  # what student code may import
    ship_expected(assignment, records.shipped_folder(harness / "assignments"))


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


def replace_members(zip_path: Path, replacements: dict[str, str]) -> None:
    """Rewrite ``zip_path`` deflated, with ``replacements`` (path in the zip: text) in place of otter's files."""
    rewritten = zip_path.with_name(zip_path.name + ".rewrite")
    with zipfile.ZipFile(zip_path) as src, zipfile.ZipFile(rewritten, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename not in replacements:
                dst.writestr(info, src.read(info), zipfile.ZIP_DEFLATED)
        for folder in sorted(set(otter_run.EMPTY_FOLDERS) - set(src.namelist())):
            dst.mkdir(folder)
        for name, text in replacements.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100755 if name in EXECUTABLE else 0o100644) << 16
            dst.writestr(info, text, zipfile.ZIP_DEFLATED)
    rewritten.replace(zip_path)


def build_autograder_zip(out: Path) -> Path:
    """Build ``out`` (e.g. dist/autograder.zip) and return its path."""
    assignment = manifest.load()
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    replacements = image_files(assignment)
    with tempfile.TemporaryDirectory(prefix="autograder-build-") as tmp:
        stage = Path(tmp)
        stage_harness(stage / otter_run.HARNESS_NAME, assignment)
        otter_run.stage_inputs(stage, assignment.total_points)
        partial = out.with_name(out.name + ".partial")  # a failed build leaves no half-written zip at ``out``
        try:
            otter_run.generate(stage, partial, assignment.python)
        except otter_run.GenerateError as exc:
            raise BuildError(str(exc)) from None
        replace_members(partial, replacements)
        partial.replace(out)
    return out
