"""``submit``: the check, what is left to do, and a zip of exactly the six modules, whatever shape the work was in."""

import zipfile

from autograder.grading import submit as grading_submit
from autograder.model import paths
from tests.helpers import reference_submission, zip_folder


def test_a_zipped_handout_folder_becomes_a_zip_of_the_six_modules_at_its_top(tmp_path, assignment):
    handout = tmp_path / "attention-handout"
    reference_submission(handout / "student_template")
    (handout / "README.md").write_text("the handout")
    (handout / "student_template" / "complexity_solution.py").write_text("# an old copy\n")
    with zipfile.ZipFile(tmp_path / "whole.zip", "w") as zf:
        for path in sorted(handout.rglob("*")):
            zf.write(path, path.relative_to(tmp_path).as_posix())
    done = grading_submit.submit(tmp_path / "whole.zip", tmp_path / "out" / "submission.zip", assignment)
    assert done.ready and done.report.points == done.report.max_points
    with zipfile.ZipFile(done.out) as zf:
        assert sorted(zf.namelist()) == sorted(f"{m}.py" for m in assignment.modules)
        assert zf.read("complexity.py") == (paths.REFERENCE / "complexity.py").read_bytes()
    lines = grading_submit.describe(done, assignment)
    assert lines[-1].startswith(f"Wrote {done.out} with all 6 modules. Upload it to Gradescope")


def test_what_is_missing_failing_or_not_implemented_is_listed_and_the_rest_is_zipped(tmp_path, assignment):
    folder = reference_submission(tmp_path / "work", drop=("shift_matrix",), replace={
        "complexity": (paths.TEMPLATES / "complexity.py").read_text(),
        "receptive_field": (paths.REFERENCE / "receptive_field.py").read_text()
        + "\n\ndef receptive_field_size(n_layers, n_heads, seq_len=None):\n    return 0\n",
    })
    done = grading_submit.submit(folder, tmp_path / "submission.zip", assignment)
    assert not done.ready and done.missing == ["shift_matrix"]
    assert done.unimplemented["complexity"] == ["softmax_attention_macs", "transformer_attention_macs", "kernel_feature_dim",
                                                "linear_attention_macs", "crossover_length", "relative_position_bias_params"]
    assert done.failing == {"receptive_field": ["size_formula", "size_capped_at_seq_len"]}
    text = "\n".join(grading_submit.describe(done, assignment))
    for line in ("MISSING  shift_matrix.py: shift_matrix.py was not found in the submission",
                 "TODO     complexity.py: not implemented yet: softmax_attention_macs",
                 "FAIL     receptive_field.py: 2 public test(s) fail: size_formula, size_capped_at_seq_len",
                 "ok       qkv_arithmetic.py", "with 5 of the 6 modules"):
        assert line in text, line
    with zipfile.ZipFile(done.out) as zf:
        assert len(zf.namelist()) == 5


def test_nothing_to_zip_and_overwriting_the_submission_are_refused(tmp_path, assignment):
    (tmp_path / "empty").mkdir()
    done = grading_submit.submit(tmp_path / "empty", tmp_path / "submission.zip", assignment)
    assert done.out is None and "none of the assignment's module files was found" in "\n".join(grading_submit.describe(done, assignment))
    assert not (tmp_path / "submission.zip").exists()
    zipped = zip_folder(reference_submission(tmp_path / "ref"), tmp_path / "mine.zip")
    done = grading_submit.submit(zipped, zipped, assignment)
    assert done.out is None and "choose another --out" in done.error


def test_unimplemented_reads_the_source():
    assert grading_submit.unimplemented(b"def f():\n    raise NotImplementedError\n\ndef g():\n    return 1\n"
                                b"def h():\n    raise NotImplementedError('TODO')\n") == ["f", "h"]
    assert grading_submit.unimplemented(b"def f(:\n") == []


def test_a_module_that_cannot_be_imported_is_named_in_the_last_line(tmp_path, assignment):
    folder = reference_submission(tmp_path / "work", replace={
        "random_features": "import scipy.special\n" + (paths.REFERENCE / "random_features.py").read_text(),
        "complexity": "def softmax_attention_macs(n_queries, n_keys, d_k, d_v)\n    return 0\n",
    })
    done = grading_submit.submit(folder, tmp_path / "submission.zip", assignment)
    assert not done.ready and set(done.broken) == {"random_features", "complexity"}
    lines = grading_submit.describe(done, assignment)
    assert lines[-1].startswith(f"Wrote {done.out} with 6 of the 6 modules; complexity.py, random_features.py will cost points")
    assert not any(line.startswith("  ok       random_features.py") for line in lines)


def test_an_out_that_cannot_be_written_keeps_the_report_and_says_how_to_fix_it(tmp_path, assignment):
    folder = reference_submission(tmp_path / "work")
    (tmp_path / "a_file").write_text("not a folder")
    done = grading_submit.submit(folder, tmp_path / "a_file" / "submission.zip", assignment)
    assert done.out is None and done.report is not None and done.report.points == done.report.max_points
    last = grading_submit.describe(done, assignment)[-1]
    assert last.startswith(f"error: could not write {tmp_path / 'a_file' / 'submission.zip'}: ") and "--out" in last
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file", "work"]
