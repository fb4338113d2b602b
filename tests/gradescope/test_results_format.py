"""Gradescope's results.json rules, as the emulation checks them."""

from autograder.gradescope import results_format


def test_a_valid_document_has_no_problems():
    ok = {"score": 3.0, "stdout_visibility": "hidden",
          "tests": [{"name": "a", "score": 1, "max_score": 2, "status": "failed", "output": "x", "visibility": "after_published"}]}
    assert results_format.problems(ok) == []
    assert results_format.problems({"tests": [{"name": "a", "score": 1}]}) == []  # scores on the tests only


def test_each_kind_of_mistake_is_named():
    found = results_format.problems({"tests": [{"name": 3, "score": "1", "visibility": "sometimes", "status": "ok"}, 7],
                                     "stdout_visibility": "loud"})
    text = "\n".join(found)
    for words in ("no top-level 'score'", "'stdout_visibility' is 'loud'", "tests[0].score", "tests[0].name", "tests[0].visibility",
                  "tests[0].status", "tests[1] is not an object"):
        assert words in text
    assert results_format.problems([]) == ["results.json holds a list, not an object"]
    assert results_format.problems({"score": float("nan"), "tests": "x"}) == ["'tests' is not a list"]
