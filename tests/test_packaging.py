"""The harness installs as a package (``pyproject.toml``): an ``autograder`` command that works from any folder and
still grades this checkout, and a wheel that holds every file the package reads.

Each test installs into a virtual environment of its own that borrows this one's packages (a ``.pth`` line), so
nothing is downloaded and the project's ``.venv`` is left as it is.
"""

import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from autograder.model import paths

PYPROJECT = tomllib.loads((paths.ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def run(cmd: list, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh virtual environment that sees this environment's packages (pip, setuptools, numpy, torch...)."""
    pytest.importorskip("setuptools", reason="no setuptools in this environment (a 3.12+ venv): building offline needs it")
    root = tmp_path_factory.mktemp("venv") / "env"
    made = run([sys.executable, "-m", "venv", "--without-pip", root], cwd=root.parent)
    assert made.returncode == 0, made.stderr
    python = root / "bin" / "python"
    own = run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=root).stdout.strip()
    Path(own, "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    return root


def pip_install(venv: Path, *args) -> None:
    proc = run([venv / "bin" / "python", "-m", "pip", "install", "--no-deps", "--no-build-isolation",
                "--disable-pip-version-check", "--no-index", *args], cwd=venv)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_autograder_command_works_from_any_folder(venv, tmp_path):
    pip_install(venv, "-e", paths.ROOT)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    help_text = run([venv / "bin" / "autograder", "--help"], cwd=elsewhere)
    assert help_text.returncode == 0, help_text.stderr
    assert help_text.stdout.startswith("usage: autograder ")  # the name it was started by
    assert "check" in help_text.stdout and "grade-all" in help_text.stdout

    root = run([venv / "bin" / "python", "-c", "from autograder.model import paths; print(paths.ROOT)"], cwd=elsewhere)
    assert root.stdout.strip() == str(paths.ROOT), root.stderr
    config = run([venv / "bin" / "autograder", "config"], cwd=elsewhere)  # reads assignments/ of the checkout
    assert config.returncode == 0, config.stdout + config.stderr


def test_the_wheel_holds_every_file_of_the_package(venv, tmp_path):
    """Built from a copy of the package (a build in the checkout would leave build/ behind), the wheel has every file
    git tracks under autograder/: modules, the worker's files, the report templates."""
    tracked = run(["git", "ls-files", "autograder"], cwd=paths.ROOT)
    if tracked.returncode != 0:
        pytest.skip(f"not a git checkout: {tracked.stderr.strip()}")
    source = tmp_path / "source"
    for name in ["pyproject.toml", "README.md", *tracked.stdout.split()]:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes((paths.ROOT / name).read_bytes())
    built = run([venv / "bin" / "python", "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                 "--disable-pip-version-check", "-w", tmp_path / "wheel", source], cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        in_wheel = {name for name in zf.namelist() if name.startswith("autograder/")}
    missing = sorted(set(tracked.stdout.split()) - in_wheel)
    assert not missing, f"pyproject.toml's package discovery leaves out {missing}"


def test_the_dependencies_admit_the_pinned_versions():
    """Every package requirements.txt pins for grading is a dependency, with a range admitting the pin."""
    declared = {Requirement(line).name.lower(): Requirement(line) for line in PYPROJECT["project"]["dependencies"]}
    pins = [Requirement(line.split("#")[0]) for line in (paths.ROOT / "requirements.txt").read_text().splitlines()
            if line.split("#")[0].strip()]
    missing = [pin.name for pin in pins if pin.name.lower() not in declared]
    assert not missing, f"requirements.txt pins {missing}, which pyproject.toml's [project] dependencies leave out"
    refused = [str(pin) for pin in pins
               if not declared[pin.name.lower()].specifier.contains(next(iter(pin.specifier)).version)]
    assert not refused, f"pyproject.toml's ranges refuse these pins of requirements.txt: {refused}"


def test_the_console_script_is_the_command_line():
    assert PYPROJECT["project"]["scripts"] == {"autograder": "autograder.cli:console"}
