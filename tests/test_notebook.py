"""`autograder.check()` as a notebook calls it: a result object, an HTML table, text elsewhere, nothing raised."""

import shutil

from autograder import notebook
from autograder.model import paths
from autograder.reports import notebook_html


def test_a_wrong_value_and_an_infinite_loop_are_rows_of_the_table(tmp_path, capsys):
    shutil.copy(paths.REFERENCE / "qkv_arithmetic.py", tmp_path)
    with open(tmp_path / "qkv_arithmetic.py", "a") as f:
        f.write("\n\ndef attention_scores(Q, K, scale=1.0):\n    return 2 * scale * (Q @ K.mT)\n"
                "\n\ndef argmax_attention(Q, K, V):\n    while True:\n        pass\n")
    result = notebook.check("qkv_arithmetic", folder=tmp_path)
    assert not result.passed and not bool(result)
    assert "Public tests" in capsys.readouterr().out  # outside Jupyter: plain text
    page = result._repr_html_().replace("<wbr>", "")  # the line-break opportunities inside long names
    assert page.split("<tbody>")[1].count("<tr>") == len(result.report.problems[0].tests)
    for text in ("qkv_worked_example", "passed", "failed", "qkv_arithmetic.attention_scores(", "a float64 array of shape (3, 3)",
                 "first at index", "did not finish within the time limit of 5 s", "6 of 9 public tests fail"):
        assert text in page, text
    tests = {t.name: t for t in result.report.problems[0].tests}
    parts = notebook_html.failure_cells(tests["scores_worked_example"])  # the labelled parts the check recorded
    assert parts["Called"].startswith("qkv_arithmetic.attention_scores(") and "expected 575, got 1150" in parts["Where"]
    stopped = notebook_html.failure_cells(tests["argmax_attention_worked_example"])  # no labels: a call stopped at its limit
    assert list(stopped) == ["Where"] and "did not finish within the time limit" in stopped["Where"]


def test_a_pass_and_mistakes_of_the_caller_never_raise(capsys):
    result = notebook.check("receptive_field", folder=paths.REFERENCE)
    assert result.passed and "All " in result._repr_html_() and "after you submit" in result.summary
    unknown = notebook.check("nonsense")
    assert not unknown.passed and "unknown problem 'nonsense'" in unknown.text()
    missing = notebook.check(folder=paths.ROOT / "no-such-folder")
    assert not missing.passed and "is not a folder" in missing._repr_html_()


def test_each_check_reads_the_module_from_disk_again(tmp_path):
    (tmp_path / "receptive_field.py").write_text("def receptive_field_size(n_layers, n_heads, seq_len=None):\n    return 0\n")
    assert not notebook.check("receptive_field", folder=tmp_path).passed
    shutil.copy(paths.REFERENCE / "receptive_field.py", tmp_path)  # the student fixes the file; the kernel imported nothing
    assert notebook.check("receptive_field", folder=tmp_path).passed



def test_a_typo_of_a_problem_name_is_the_callers_mistake_not_the_checks(capsys):
    for asked, meant in (("q1", "qkv_arithmetic"), ("problem 3", "complexity"), ("shift_matirx", "shift_matrix")):
        result = notebook.check(asked)
        assert not result.passed and "The check itself failed" not in result.text()
        assert f"did you mean {meant!r}" in result.text() and "did you mean" in result._repr_html_()


def test_submit_in_a_notebook_writes_the_zip_and_says_what_to_upload(tmp_path, capsys):
    result = notebook.submit(folder=paths.REFERENCE, out=tmp_path / "submission.zip")
    assert result and result.out == tmp_path / "submission.zip" and result.out.is_file()
    assert "Upload it to Gradescope" in result.text() and "Upload it to Gradescope" in result._repr_html_()
    assert not notebook.submit(folder=tmp_path / "nowhere", out=tmp_path / "x.zip")
