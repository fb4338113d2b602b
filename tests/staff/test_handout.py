"""`handout`: the students' zip holds no reference, hidden test or mistake, and its `check` works alone."""

import keyword
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from autograder.grading.runner import load_tests
from autograder.model import manifest, paths
from autograder.staff import templates
from autograder.staff.handout import TOP


@pytest.fixture(scope="module")
def handout(built_handout):
    return built_handout[0]


def extract(zip_path, where):
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(where)
    return where / TOP


def student_check(root):
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_ROOT", "PYTHONPATH")}
    return subprocess.run([sys.executable, "-m", "autograder", "check"], cwd=root, env=env, capture_output=True, text=True, timeout=600)


def names_in(line):
    """Identifiers of a line other than Python keywords: a line without any cannot give an answer away."""
    return [w for w in re.findall(r"[A-Za-z_]\w*", line) if not keyword.iskeyword(w)]


def test_no_reference_hidden_test_or_mistake_inside(handout, assignment):
    with zipfile.ZipFile(handout) as zf:
        names = zf.namelist()
        texts = {n: zf.read(n).decode("utf-8") for n in names if not n.endswith((".npz", ".png", ".jpg", ".svg", ".gif"))}
    assert all(n.startswith(TOP + "/") for n in names)
    parts = {p for n in names for p in n.split("/")}
    assert not parts & {"reference", "mistakes", "fair", "hidden.py"}
    # The staff tools and the Gradescope adapter are left out as packages, whatever their files are called; of the
    # commands, only the students' ship.
    package = f"{TOP}/autograder/"
    shipped = {n[len(package):].rsplit("/", 1)[0] for n in names if n.startswith(package) and "/" in n[len(package):]}
    assert shipped and not shipped & {"staff", "gradescope"}, sorted(shipped)
    commands = {n.rpartition("/")[2] for n in names if n.startswith(f"{package}commands/")}
    assert commands == {"__init__.py", "common.py", "check.py", "submit.py"}, sorted(commands)
    assert {"grading", "sandbox", "sandbox/worker", "testkit", "expected", "model", "reports"} <= shipped
    for module in assignment.modules:
        assert f"{TOP}/student_template/{module}.py" in names
        assert f"{TOP}/assignments/{module}/tests/public.py" in names
        problem = yaml.safe_load(texts[f"{TOP}/assignments/{module}/problem.yaml"])
        assert problem["tests"]["hidden"] == []
        # The hidden tests stay behind, their points do not: the self-check says what share the public tests carry.
        assert problem["hidden_points"] == sum(manifest.points_in(p) for p in assignment.problem(module).hidden_tests)
    assert not [n for n, t in texts.items() if n.endswith(".py") and "hidden=True" in t]
    for module in assignment.modules:
        secret = {line for line in templates.solution_lines((paths.REFERENCE / f"{module}.py").read_text()) if names_in(line)}
        leaks = [(n, line.strip()) for n, t in texts.items() for line in t.splitlines() if line.strip() in secret]
        assert not leaks, leaks[:5]
    for readme in (paths.ASSIGNMENTS / m / "README.md" for m in assignment.modules):
        for image in re.findall(r"\]\(([^)\s]+\.png)\)", readme.read_text() if readme.is_file() else ""):
            shipped = (readme.parent / image).resolve().relative_to(paths.ROOT).as_posix()
            assert f"{TOP}/{shipped}" in names, image
    readme = texts[f"{TOP}/README.md"]
    assert "make submission" in readme and "pip install -r requirements.txt" in readme
    assert "--index-url https://download.pytorch.org/whl/cpu" in readme and "3.10, 3.11, 3.12 or 3.13" in readme
    assert "already has torch" in readme and "autograder.check(" in readme and "after you submit" in readme
    assert f"{TOP}/attention_homework.ipynb" in names
    requirements = [line for line in texts[f"{TOP}/requirements.txt"].splitlines() if line and not line.startswith("#")]
    assert requirements and all(">=" in line and "==" not in line.split(";")[0] for line in requirements), requirements
    stubs = [t for n, t in texts.items() if n.startswith(f"{TOP}/student_template/")]
    assert stubs and not [t for t in stubs if "make templates" in t]
    assert not parts & {"grade.py", "templates.py", "starter_notebook.py"}
    assert "submission:" in texts[f"{TOP}/Makefile"]


def test_check_runs_from_the_extracted_handout(handout, assignment, tmp_path):
    root = extract(handout, tmp_path)
    os.chmod(root, 0o755)
    proc = student_check(root)
    assert os.stat(root).st_mode & 0o777 == 0o755  # a self-check (as root too) changes no permission
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr
    assert "not implemented yet" in proc.stdout and "no expected value" not in proc.stdout

    for module in assignment.modules:
        shutil.copy(paths.REFERENCE / f"{module}.py", root / "student_template" / f"{module}.py")
    proc = student_check(root)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert "FAIL" not in proc.stdout
    assert all(module in proc.stdout for module in assignment.modules)

    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_ROOT", "PYTHONPATH")}
    staff = subprocess.run([sys.executable, "-m", "autograder", "validate"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert staff.returncode == 2 and "staff command" in staff.stderr, staff.stderr
    for command in ("grade", "templates"):
        staff = subprocess.run([sys.executable, "-m", "autograder", command, "x"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
        assert staff.returncode == 2 and "staff command" in staff.stderr and "Traceback" not in staff.stderr, staff.stderr
    help_text = subprocess.run([sys.executable, "-m", "autograder", "--help"], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    commands = re.findall(r"^    (\S+)", help_text.stdout, flags=re.M)
    assert help_text.returncode == 0 and commands == ["check", "submit"], help_text.stdout

    wrong = root / "student_template" / "qkv_arithmetic.py"
    wrong.write_text(wrong.read_text() + "\n\ndef attention_scores(Q, K, scale=1.0):\n    return 2 * scale * (Q @ K.mT)\n")
    proc = student_check(root)
    assert proc.returncode == 1 and "Expected:" in proc.stdout and "qkv_arithmetic.attention_scores(" in proc.stdout, proc.stdout[-3000:]


def test_a_damaged_record_in_the_handout_is_the_graders_fault_and_the_rest_is_checked(handout, assignment, tmp_path):
    root = extract(handout, tmp_path)
    for module in assignment.modules:
        shutil.copy(paths.REFERENCE / f"{module}.py", root / "student_template" / f"{module}.py")
    damaged = root / "assignments" / "expected" / "shift_matrix.json"
    damaged.write_bytes(damaged.read_bytes()[:300])  # a download or a sync tool cut it short
    proc = student_check(root)
    assert proc.returncode == 3, proc.stdout[-3000:] + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "shift_matrix.json are damaged" in proc.stdout and "download the handout again" in proc.stdout
    verdict = proc.stdout.strip().splitlines()[-1]
    assert "could not be judged, a fault of the grader's files and not of your code" in verdict
    assert "all the others pass" in verdict, verdict


def test_make_submission_zips_the_six_modules(handout, assignment, tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    root = extract(handout, tmp_path)
    proc = subprocess.run(["make", "submission", f"PYTHON={sys.executable}"], cwd=root, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with zipfile.ZipFile(root / "submission.zip") as zf:
        assert sorted(zf.namelist()) == sorted(f"{m}.py" for m in assignment.modules)
    # make submission is submit: the check ran first, and says what is left to do before uploading
    assert "TODO     qkv_arithmetic.py: not implemented yet: qkv" in proc.stdout and "upload this zip to Gradescope" in proc.stdout


def test_pytest_in_the_handout_runs_each_public_test_through_the_check(handout, assignment, tmp_path):
    root = extract(handout, tmp_path)
    shutil.copy(paths.REFERENCE / "receptive_field.py", root / "student_template")
    wrong = (paths.REFERENCE / "complexity.py").read_text() + "\n\ndef kernel_feature_dim(D, degree):\n    return D * degree\n"
    (root / "student_template" / "complexity.py").write_text(wrong)
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_ROOT", "PYTHONPATH")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v", "assignments/receptive_field/tests/public.py",
                           "assignments/complexity/tests/public.py"], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:] + proc.stderr[-3000:]
    assert "public.py::size_formula PASSED" in out and "public.py::kernel_feature_dim_small FAILED" in out, out[-3000:]
    assert "Expected: int 9" in out and "Got: int 6" in out and "Traceback" not in out.split("FAILURES")[-1], out[-3000:]
    public = sum(len(load_tests(assignment.problem(m), include_hidden=False)) for m in ("receptive_field", "complexity"))
    assert f"3 failed, {public - 3} passed" in out, out[-500:]  # the three complexity tests that call kernel_feature_dim


def handout_pytest(root, *args):
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_ROOT", "PYTHONPATH")}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def test_pytest_takes_the_submission_after_a_space_and_shows_what_the_code_printed(handout, tmp_path):
    root = extract(handout, tmp_path)
    mine = root / "my_work"
    mine.mkdir()
    source = (paths.REFERENCE / "receptive_field.py").read_text() + "\nprint('hello from receptive_field')\n"
    (mine / "receptive_field.py").write_text(source)
    proc = handout_pytest(root, "--submission", "my_work", "assignments/receptive_field/tests/public.py")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "printed by your code: receptive_field" in proc.stdout and "hello from receptive_field" in proc.stdout
    proc = handout_pytest(root, "--submission", "no_such_folder")
    assert proc.returncode != 0 and "--submission no_such_folder: no such folder or zip" in proc.stderr, proc.stderr[-2000:]


def test_the_readme_and_the_notebook_say_how_to_run_pytest(handout):
    with zipfile.ZipFile(handout) as zf:
        readme = zf.read(f"{TOP}/README.md").decode()
        notebook = zf.read(f"{TOP}/attention_homework.ipynb").decode()
    assert "pytest --submission my_work/" in readme and "--submission=" in readme
    assert "`pytest`" in notebook and "--submission" in notebook


def test_the_readme_says_what_to_do_where_the_pytorch_cpu_index_fails(handout):
    with zipfile.ZipFile(handout) as zf:
        readme = zf.read(f"{TOP}/README.md").decode()
    assert 'fails with "No matching distribution found for filelock"' in readme
    assert "pip install torch --no-deps --index-url https://download.pytorch.org/whl/cpu" in readme
    assert "cannot be reached at all" in readme and "about 5 GB" in readme


def test_the_handout_allows_the_imports_grading_allows(handout):
    with zipfile.ZipFile(handout) as zf:
        lines = zf.read(f"{TOP}/requirements.txt").decode().splitlines()
    from autograder.sandbox import environment

    assert environment.marked(lines) == environment.student_libraries() == ("numpy", "torch")
