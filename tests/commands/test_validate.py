"""`validate`: one table per problem, exit 0 when every variant gets what it should, 1 on any MISS."""

import os
import subprocess
import sys

from autograder.model import paths
from tests.helpers import one_problem_root


def run_validate(*args, root=None):
    env = dict(os.environ)
    env.pop("AUTOGRADER_ROOT", None)
    if root is not None:
        env["AUTOGRADER_ROOT"] = str(root)
    return subprocess.run([sys.executable, "-m", "autograder", "validate", *args], cwd=paths.PACKAGE_DIR.parent,
                          env=env, capture_output=True, text=True, timeout=600)


def test_validate_one_problem_prints_its_table_and_passes(tmp_path):
    # Two mistakes and two fair variants show the table (tests/staff/test_validate.py grades them all); a second problem gives the
    # row of the mistake inside an otherwise full submission.
    root = one_problem_root(tmp_path, "qkv_arithmetic", also=("receptive_field",), variants=2)
    proc = run_validate("-p", "qkv_arithmetic", root=root)
    out = proc.stdout
    assert "qkv_arithmetic" in out and "variant" in out and "expectation" in out
    for label in ("reference", "stub", "mistake:", "fair:", "only-there:", "template"):
        assert label in out, label
    rows = [line for line in out.splitlines() if line.rstrip().endswith(("OK", "MISS"))]
    assert len(rows) >= 5 and all(line.rstrip().endswith("OK") for line in rows), out
    assert any(line.startswith("only-there:") and "others full" in line for line in rows), out
    assert proc.returncode == 0, out + proc.stderr


def test_a_mistake_that_keeps_full_marks_is_a_miss(tmp_path):
    root = one_problem_root(tmp_path, "qkv_arithmetic", variants=1)
    (root / "assignments" / "qkv_arithmetic" / "mistakes" / "planted_no_change.py").write_text('HINT = "planted: changes nothing"\n')
    proc = run_validate("-p", "qkv_arithmetic", root=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    planted = [line for line in proc.stdout.splitlines() if line.startswith("mistake:planted_no_change")]
    assert planted and planted[0].rstrip().endswith("MISS") and "15/15" in planted[0], proc.stdout


def test_a_drifted_template_is_a_miss(tmp_path):
    root = one_problem_root(tmp_path, "qkv_arithmetic", variants=0)  # the template row is what this test is about
    stub = root / "student_template" / "qkv_arithmetic.py"
    stub.write_text(stub.read_text() + "\n# edited by hand\n")
    proc = run_validate("-p", "qkv_arithmetic", root=root)
    assert proc.returncode == 1
    assert any(line.startswith("template") and "differs" in line and line.rstrip().endswith("MISS") for line in proc.stdout.splitlines()), proc.stdout


def test_unknown_problem_is_refused():
    proc = run_validate("-p", "nonsense")
    assert proc.returncode == 2 and "unknown problem" in proc.stderr


def test_a_reference_that_cannot_be_recorded_stops_the_validation_once_with_the_fix(tmp_path):
    root = one_problem_root(tmp_path, "receptive_field", variants=1)
    reference = root / "reference" / "receptive_field.py"
    reference.write_text(reference.read_text() + "\ndef oops(:\n")
    proc = run_validate("-p", "receptive_field", root=root)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: the expected values could not be recorded: recording the expected values of "
                                  "receptive_field failed (fix the reference or the tests"), proc.stderr
    assert "SyntaxError" in proc.stderr and proc.stderr.count("Traceback") == 1  # recorded once, not once per call
