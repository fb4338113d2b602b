"""The image's files: exactly what setup.sh installs and from where, the environment, the pins, and run_autograder."""

import shlex
import sys
from pathlib import Path

import pytest
import yaml

from autograder.gradescope import build, image
from autograder.model import paths


@pytest.fixture(scope="module")
def files(assignment):
    return build.image_files(assignment)


def installs(setup_sh: str) -> list[tuple[str, tuple[str, ...], bool]]:
    """(tool, what it installs, optional?) for every install command of the script, in order."""
    found = []
    for line in setup_sh.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        optional = "||" in line
        words = shlex.split(line.split("||")[0])
        if words[:2] == ["apt-get", "install"]:
            found.append(("apt", tuple(w for w in words[2:] if not w.startswith("-")), optional))
        elif "pip" in words and "install" in words:
            found.append(("pip", tuple(words[words.index("install") + 1:]), optional))
        elif words[0] == "wget":
            found.append(("download", (words[-1],), optional))
        elif "env" in words and "create" in words:
            found.append(("conda", tuple(words[words.index("create") + 1:]), optional))
    return found


def test_setup_installs_exactly_what_grading_needs_from_where_it_should(files):
    torch_version = next(r for r in image.grading_requirements() if r.startswith("torch==")).split("==")[1]
    assert installs(files["setup.sh"]) == [
        ("apt", ("wget", "ca-certificates", "libseccomp2"), False),
        ("apt", ("bubblewrap",), True),
        ("download", ("https://github.com/conda-forge/miniforge/releases/download/25.3.1-0/Miniforge3-Linux-$(uname -m).sh",), False),
        ("conda", ("--quiet", "-p", image.ENV_DIR, "-f", "/autograder/source/environment.yml"), False),
        ("pip", ("--no-cache-dir", "--no-deps", "--index-url", "https://download.pytorch.org/whl/cpu", f"torch=={torch_version}"), False),
        ("pip", ("--no-cache-dir", "-r", "/autograder/source/requirements.txt", "-c", "/autograder/source/constraints.txt"), False),
    ]


def test_setup_leaves_out_what_otter_s_template_adds_and_fails_only_on_required_steps(files):
    text = files["setup.sh"]
    for unwanted in ("playwright", "chromium", "texlive", "pandoc", "build-essential", "jq", "nb_conda_kernels", "/root/", "mamba shell"):
        assert unwanted not in text
    assert "set -euo pipefail" in text
    assert "torch.version.cuda is None" in text  # the build fails if a CUDA torch slipped in
    assert f"chmod -R go-w,go+rX {image.CONDA_DIR} {image.ENV_DIR}" in text and "chmod 700 /autograder/source" in text
    assert image.ENV_DIR.startswith("/opt/") and image.CONDA_DIR.startswith("/opt/")


def test_environment_is_python_and_pip_from_conda_forge(files, assignment):
    env = yaml.safe_load(files["environment.yml"])
    assert env["channels"] == ["conda-forge"] and env["dependencies"] == [f"python={assignment.python}", "pip"]


def test_requirements_are_the_projects_pins_plus_otter(files):
    def lines(name):
        # A line's comment (the mark of what student code may import) is for the harness, not pip: the image drops it.
        stripped = [r.split("#", 1)[0].strip() for r in (paths.ROOT / name).read_text().splitlines()]
        return [r for r in stripped if r and not r.startswith("-")]

    otter = [r for r in lines("requirements-dev.txt") if r.startswith("otter-grader")]
    assert files["requirements.txt"].splitlines() == lines("requirements.txt") + otter
    assert all("==" in r for r in files["requirements.txt"].splitlines())


def test_constraints_pin_every_package_at_the_version_the_tests_ran_with(files):
    from importlib import metadata

    pins = dict(line.split("==") for line in files["constraints.txt"].splitlines())
    for requirement in files["requirements.txt"].splitlines():
        name, version = requirement.split("==")
        assert pins[name.split("[")[0].lower().replace("_", "-")] == version
    assert pins["torch"] == metadata.version("torch").split("+")[0]
    assert pins["jupyter-client"] == metadata.version("jupyter_client")  # dependencies of dependencies too
    assert not [name for name in pins if name.startswith(("nvidia-", "triton"))]


def test_run_autograder_locks_the_source_then_runs_the_zip_s_entry_point_with_the_image_s_python(files):
    lines = [line for line in files["run_autograder"].splitlines() if line and not line.startswith("#")]
    assert lines == [
        "set -euo pipefail",
        f'ENV_DIR="${{{image.ENV_OVERRIDE}:-{image.ENV_DIR}}}"',
        'export PATH="$ENV_DIR/bin:$PATH"',
        "chmod 700 /autograder/source  # the harness, the reference and the hidden tests: root only",
        'exec "$ENV_DIR/bin/python" -I /autograder/source/run_grading.py  # the one grading run (autograder/gradescope/entry.py)',
    ]


def test_a_missing_pinned_package_is_a_clear_build_error(monkeypatch, assignment):
    monkeypatch.setattr(image, "grading_requirements", lambda: ["no-such-package-anywhere==1.0"])
    with pytest.raises(build.BuildError, match="no-such-package-anywhere is not installed.*make autograder"):
        build.image_files(assignment)


def test_setup_compiles_the_source_once_as_an_optional_step_after_the_installs(files):
    lines = [line for line in files["setup.sh"].splitlines() if "compileall" in line]
    assert len(lines) == 1 and lines[0].startswith(f"{image.ENV_DIR}/bin/python -m compileall ")
    words = shlex.split(lines[0].split("||")[0])
    assert words[-1] == image.SOURCE and "||" in lines[0]  # a failure only warns: each run then compiles
    text = files["setup.sh"]
    assert text.index("pip check") < text.index("compileall") < text.index(f"chmod 700 {image.SOURCE}")


def test_an_emulated_image_compiles_the_source_as_setup_sh_does(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "harness.py").write_text("VALUE = 1\n")
    assert image.compile_source(tmp_path, Path(sys.prefix))
    assert list((tmp_path / "pkg" / "__pycache__").glob("harness.*.pyc"))
    (tmp_path / "pkg" / "broken.py").write_text("def (\n")
    assert not image.compile_source(tmp_path, Path(sys.prefix))
