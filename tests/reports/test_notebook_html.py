"""The notebook's table: the total first, scalars in the expected and got columns, long names wrapped between words."""

import re

from autograder.model import scores
from autograder.reports import notebook_html


def report():
    tests = [
        scores.TestResult("complexity", "softmax_attention_macs_small", 1, False, True),
        scores.TestResult("complexity", "kernel_feature_dim_small", 1, False, False, "Called: ...",
                   details={"Called": "complexity.kernel_feature_dim(D=16, degree=2)", "Expected": "int 256", "Got": "int 128",
                            "Where": "expected 256, got 128"}),
        scores.TestResult("complexity", "crossover_length_worked_example", 2, False, False,
                   "complexity.crossover_length(D=3, M=4) did not finish within the time limit of 5 s and was stopped."),
    ]
    return scores.GradeReport("sub", [scores.ProblemResult("complexity", "Complexity of attention", tests, output="<script>x</script>")])


def test_the_total_comes_first_and_scalars_fill_their_columns():
    page = notebook_html.render(report(), "2 of 3 public tests fail", False)
    assert page.index("1/3 public tests pass · 1/4 points") < page.index("<table")
    row = page.split("kernel_<wbr>feature_<wbr>dim_<wbr>small")[1].split("</tr>")[0].replace("<wbr>", "")
    assert re.search(r">int 256</td>\s*<td[^>]*>int 128</td>\s*<td[^>]*>expected 256, got 128</td>", row)  # expected, got, where
    stopped = page.split("crossover_<wbr>length")[1].split("</tr>")[0]
    assert 'colspan="5"' in stopped  # a failure without labels spans the row instead of squeezing into one column
    assert "&lt;script&gt;" in page and "<script>" not in page


def test_the_table_fits_the_page_and_breaks_long_names_only_between_words():
    page = notebook_html.render(report(), "", False)
    assert "table-layout:fixed;width:100%" in page and sum(notebook_html.WIDTHS) == 100
    assert len(notebook_html.WIDTHS) == len(notebook_html.COLUMNS)
    assert "anywhere" not in page  # no break inside a word, even in a traceback (unless one word is wider than its column)
    assert "softmax_<wbr>attention_<wbr>macs_<wbr>small" in page


def test_an_import_error_and_its_traceback_are_shown_once_not_in_every_row():
    status = "random_features.py could not be imported: ModuleNotFoundError: No module named 'scipy'"
    detail = status + "\nTraceback (most recent call last):\n  File \"random_features.py\", line 1, in <module>\n    import scipy.special"
    tests = [scores.TestResult("random_features", f"test_{i}", 1, False, False, detail) for i in range(10)]
    problem = scores.ProblemResult("random_features", "Random features", tests, status, kind=scores.IMPORT_FAILED)
    page = notebook_html.render(scores.GradeReport("sub", [problem]), "", False).replace("<wbr>", "")
    assert page.count("import scipy.special") == 1 and page.count("No module named") == 1
    assert page.count("not run: the module could not be graded") == 10 and all(f"test_{i}" in page for i in range(10))
