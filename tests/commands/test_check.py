"""`check`: public tests only, a table per problem, exit status 0 only when all pass."""

import subprocess
import sys

from autograder.grading.runner import load_tests
from autograder.model import paths


def run_check(*args):
    return subprocess.run([sys.executable, "-m", "autograder", "check", *args], cwd=paths.ROOT, capture_output=True, text=True, timeout=600)


def test_check_on_reference_passes(assignment):
    proc = run_check(str(paths.REFERENCE))
    assert proc.returncode == 0, proc.stdout[-2000:]
    for module in assignment.modules:
        assert module in proc.stdout
    assert "FAIL" not in proc.stdout
    hidden = [s.name for p in assignment.problems for s in load_tests(p, include_hidden=True) if s.hidden]
    assert hidden and not [name for name in hidden if name in proc.stdout]  # no hidden test runs in a self-check
    public = proc.stdout.count("  PASS  ")
    assert f"All {public} public tests pass." in proc.stdout and "the hidden tests, run on Gradescope after you submit" in proc.stdout


def test_check_on_stubs_fails_with_readable_messages():
    proc = run_check()
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout and "not implemented yet" in proc.stdout and "Traceback" not in proc.stdout
    assert "public tests fail (see above)" in proc.stdout and "All " not in proc.stdout


def test_check_shows_called_expected_got_where(tmp_path):
    source = (paths.REFERENCE / "qkv_arithmetic.py").read_text() + "\n\ndef attention_scores(Q, K, scale=1.0):\n    return Q @ K.mT\n"
    (tmp_path / "qkv_arithmetic.py").write_text(source)
    proc = run_check(str(tmp_path), "-p", "qkv_arithmetic")
    assert proc.returncode == 1
    for word in ("Called: qkv_arithmetic.softmax_attention(", "Expected:", "Got:", "Where:", "first at index", "largest error", "Hint:"):
        assert word in proc.stdout, word


def test_bad_arguments_are_explained(tmp_path):
    proc = run_check(str(tmp_path / "missing"))
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    proc = run_check(str(paths.REFERENCE), "-p", "nonsense")
    assert proc.returncode == 2 and "unknown problem" in proc.stderr
    proc = run_check(str(paths.REFERENCE / "complexity.py"))  # one module file: the command for its folder is given
    assert proc.returncode == 2 and proc.stderr.strip().endswith(f"check {paths.REFERENCE} -p complexity"), proc.stderr
    (tmp_path / "work.ipynb").write_text("{}")
    proc = run_check(str(tmp_path / "work.ipynb"))
    assert proc.returncode == 2 and "is a file, not a folder or a .zip of your modules" in proc.stderr
