"""Builders for submissions used across the harness's tests."""

from __future__ import annotations

import io
import json
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

from autograder.model import manifest, paths, scores
from autograder.model.scores import GradeReport, ProblemResult

ROOT = paths.ROOT


def reference_submission(folder: Path, replace: dict[str, str] | None = None, drop: tuple[str, ...] = ()) -> Path:
    """A folder with every reference module, some replaced by the given sources or left out."""
    folder.mkdir(parents=True, exist_ok=True)
    for module in manifest.load().modules:
        if module in drop:
            continue
        target = folder / f"{module}.py"
        if replace and module in replace:
            target.write_text(replace[module])
        else:
            shutil.copy(paths.REFERENCE / f"{module}.py", target)
    return folder


def zip_folder(folder: Path, out: Path, prefix: str = "") -> Path:
    """Zip the files of ``folder`` (flat), optionally under one folder ``prefix``."""
    with zipfile.ZipFile(out, "w") as zf:
        for f in sorted(folder.iterdir()):
            zf.write(f, prefix + f.name)
    return out


def zip_bytes(files: dict[str, str | bytes]) -> bytes:
    """A zip archive, in memory, of ``files`` (name -> content)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def run_grade(submission: Path, out: Path, timeout: float = 600) -> tuple[subprocess.CompletedProcess, dict]:
    """Run ``python -m autograder grade`` as a separate process; return it and the parsed results."""
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade", str(submission), "--out", str(out), "-q"],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    return proc, json.loads(out.read_text())


def problem_totals(results: dict) -> dict[str, float]:
    """Score per module from a results.json (summing entries whose name starts with the module)."""
    from autograder.reports.score_table import problem_totals as totals

    return {m: s for m, (s, _) in totals(results, manifest.load().modules).items()}


def one_problem_root(tmp_path: Path, module: str, name: str = "root", also: tuple[str, ...] = (),
                     variants: int | None = None) -> Path:
    """A copy of the project inputs whose manifest lists only ``module`` (and the problems ``also``; use it as
    AUTOGRADER_ROOT). With ``variants``, each problem keeps only its first that many mistakes and fair variants (for a
    test of a command, not of the variants themselves, which tests/staff/test_validate.py grades in full)."""
    root = tmp_path / name
    for each in (module, *also):
        shutil.copytree(paths.ASSIGNMENTS / each, root / "assignments" / each)
        for kind in ("mistakes", "fair") if variants is not None else ():
            for extra in sorted((root / "assignments" / each / kind).glob("*.py"))[variants:]:
                extra.unlink()
        for folder in ("reference", "student_template"):
            (root / folder).mkdir(parents=True, exist_ok=True)
            shutil.copy(paths.ROOT / folder / f"{each}.py", root / folder / f"{each}.py")
    assignment = yaml.safe_load(paths.ASSIGNMENT_MANIFEST.read_text(encoding="utf-8"))
    (root / "assignments" / "assignment.yaml").write_text(yaml.safe_dump(dict(assignment, problems=[module, *also])),
                                                          encoding="utf-8")
    return root


def make_report(name: str, problems: dict[str, list[tuple]], seconds: float = 1.0, notes: tuple[str, ...] = (),
                hints: dict[str, str] | None = None) -> GradeReport:
    """A score record: ``{module: [(test, points, passed, mistakes...), ...]}`` (each mistake with its hint from ``hints``);
    no problems means the grader failed."""
    made = []
    for module, tests in problems.items():
        made.append(ProblemResult(module, module.title(), [
            scores.TestResult(module, test, float(points), False, passed, "" if passed else "wrong", 0.1,
                              {m: (hints or {}).get(m, "") for m in mistakes})
            for test, points, passed, *mistakes in tests]))
    return GradeReport(name, made, list(notes), seconds)


def damage_deflated(data: bytes, member: str) -> bytes:
    """The zip ``data`` with the deflated stream of ``member`` made invalid (its first block claims the reserved type):
    reading it raises zlib.error "Error -3 while decompressing data", as a download damaged in transit can."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo(member)
    assert info.compress_type == zipfile.ZIP_DEFLATED, f"{member} is not deflated"
    name_length, extra_length = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
    start = info.header_offset + 30 + name_length + extra_length
    return data[:start] + b"\xff" + data[start + 1:]
