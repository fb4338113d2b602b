"""The handout installs with its README's own commands, as a normal user, into a fresh venv; then `check` works.

By default (inside `make test`) the installed files of the distributions the requirements need (numpy, torch,
PyYAML and their dependencies) are hard-linked from this project's environment into the fresh venv right after
`python3 -m venv`, so pip finds the ranges satisfied and downloads nothing: this proves the README's commands run as
written, as a normal user, and that the ranges accept the versions grading uses; not that the indexes serve them.
``AUTOGRADER_FULL_INSTALL=1`` runs the same commands without the links (a real download; it needs
download.pytorch.org, which this build machine does not reach), and
``AUTOGRADER_LOWEST=1`` installs the lowest version of every range from PyPI instead (the CI job for the lower bounds:
torch 2.2.0, numpy 1.24.0 and PyYAML 6.0 passed it on 2026-11-24, Python 3.11, as user nobody).
``AUTOGRADER_PYPI_INSTALL=1`` installs the ranges from PyPI alone (without the CPU index line: PyPI's torch is the CUDA
build on Linux); with ``AUTOGRADER_STUDENT_PYTHON=/path/to/python3.X`` the README's ``python3`` is that interpreter (the
CI job for the Python versions; 3.10.13, 3.12.1 and 3.13.0 passed it on 2026-11-24, as user nobody).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from autograder.model import paths
from autograder.staff.handout import TOP

FULL = os.environ.get("AUTOGRADER_FULL_INSTALL") == "1"
LOWEST = os.environ.get("AUTOGRADER_LOWEST") == "1"
PYPI = os.environ.get("AUTOGRADER_PYPI_INSTALL") == "1"
STUDENT_PYTHON = os.environ.get("AUTOGRADER_STUDENT_PYTHON")  # the interpreter the README's `python3` names
STUDENT_PATH = "/usr/local/bin:/usr/bin:/bin"
NORMAL_USER = 65534  # nobody: when the suite runs as root, the student is someone else


def readme_setup_commands(readme: str) -> list[str]:
    """The shell commands of the README's "Set up" block, without comments and the Windows-only remark."""
    block = re.search(r"## Set up \(once\).*?```sh\n(.*?)```", readme, flags=re.S).group(1)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip() and not line.startswith("#")]


def as_student(command: str, cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    bin_dir = cwd.parent / "bin"  # the student's `python3`: a link
    env = {"PATH": f"{bin_dir}:{STUDENT_PATH}", "HOME": str(cwd.parent), "LANG": "C.UTF-8"}
    prefix = []
    if os.geteuid() == 0:
        prefix = ["setpriv", f"--reuid={NORMAL_USER}", f"--regid={NORMAL_USER}", "--clear-groups"]
    return subprocess.run([*prefix, "bash", "-ec", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def link_packages(requirements: Path, target: Path) -> None:
    """Hard-link into ``target`` the installed files of the distributions ``requirements`` needs, with their dependencies."""
    from importlib import metadata

    from packaging.requirements import Requirement

    # pip reads a requirement line up to its comment (the handout marks what student code may import that way).
    lines = [line.split(" #", 1)[0].strip() for line in requirements.read_text().splitlines()]
    todo = [Requirement(line) for line in lines if line and not line.startswith("#")]
    seen: set[str] = set()
    while todo:
        requirement = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        dist = metadata.distribution(requirement.name)
        if dist.metadata["Name"].lower() in seen:
            continue
        seen.add(dist.metadata["Name"].lower())
        todo += [Requirement(r) for r in dist.requires or []]
        for file in dist.files or []:
            source, dest = Path(dist.locate_file(file)), target / file
            if source.is_file() and not dest.exists() and dest.resolve().is_relative_to(target.resolve()):
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.link(source, dest)


@pytest.mark.skipif(not shutil.which("python3") or sys.platform != "linux", reason="the README's commands are run with bash and python3")
def test_readme_install_then_check_stubs_and_reference(built_handout, assignment):
    home = Path(tempfile.mkdtemp(prefix="student-", dir="/tmp"))
    try:
        with zipfile.ZipFile(built_handout[0]) as zf:
            zf.extractall(home)
        root = home / TOP
        # The student's `python3` is a link in a folder of its own (~/bin, Homebrew's bin): the venv starts through it.
        assert not STUDENT_PYTHON or LOWEST or PYPI or FULL, "AUTOGRADER_STUDENT_PYTHON needs a real install (AUTOGRADER_PYPI_INSTALL=1, say): this project's packages are built for its own Python"
        (home / "bin").mkdir()
        (home / "bin" / "python3").symlink_to(STUDENT_PYTHON or shutil.which("python3", path=STUDENT_PATH))
        if LOWEST:
            text = (root / "requirements.txt").read_text()
            (root / "requirements.txt").write_text(text.replace(">=", "=="))
        stubs, solved = assignment.modules[:3], assignment.modules[3:]  # one check: three stubs, three reference modules
        for module in solved:
            shutil.copy(paths.REFERENCE / f"{module}.py", root / "student_template" / f"{module}.py")
        if os.geteuid() == 0:
            for path in [home, *home.rglob("*")]:
                os.chown(path, NORMAL_USER, NORMAL_USER, follow_symlinks=False)
        commands = readme_setup_commands((root / "README.md").read_text())
        assert commands[0] == "python3 -m venv .venv" and any("download.pytorch.org/whl/cpu" in c for c in commands)
        assert commands[-1] == "pip install -r requirements.txt"
        first = as_student(commands[0], root, timeout=600)  # python3 -m venv .venv
        assert first.returncode == 0, first.stdout + first.stderr
        if not (FULL or LOWEST or PYPI):  # see the module's docstring: hard links to the project's packages, so nothing is downloaded
            link_packages(root / "requirements.txt", next((root / ".venv" / "lib").glob("python3*/site-packages")))
        if LOWEST or PYPI:  # from PyPI alone (on Linux its torch is the CUDA build: the CPU index has no 2.3 for every Python)
            commands = [c for c in commands if "download.pytorch.org" not in c]
        install = as_student("\n".join(["source .venv/bin/activate", *commands[1:]]), root, timeout=3600)
        assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
        assert FULL or LOWEST or PYPI or "Downloading" not in install.stdout, install.stdout[-3000:]

        checked = as_student(".venv/bin/python -m autograder check", root, timeout=600)
        table = checked.stdout
        assert checked.returncode == 1 and "Traceback" not in table + checked.stderr, table[-3000:] + checked.stderr
        for module in stubs:
            assert re.search(rf"^{module} — .* 0/\d+ passed", table, flags=re.M) and f"{module}." in table, table[-3000:]
        for module in solved:
            assert re.search(rf"^{module} — .* (\d+)/\1 passed", table, flags=re.M), table[-3000:]
        assert table.count("is not implemented yet") >= len(stubs)
        if FULL or LOWEST or PYPI:
            versions = as_student(".venv/bin/python -c 'import sys, torch, numpy; print(sys.version.split()[0], torch.__version__, numpy.__version__)'", root, 120)
            print("installed:", versions.stdout.strip())
    finally:
        shutil.rmtree(home, ignore_errors=True)
