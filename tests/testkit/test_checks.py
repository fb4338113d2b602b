"""Comparison helpers say where a value differs, in words a student can act on."""

import numpy as np
import pytest

from autograder.testkit import checks


def test_transposed_shape_is_named():
    diff = checks.difference(np.zeros((2, 3)), np.zeros((3, 2)))
    assert "expected shape (3, 2), got (2, 3)" in diff and "transposed" in diff


def test_first_difference_and_largest_error():
    expected = np.array([[1.0, 2.0], [3.0, 4.0]])
    got = expected.copy()
    got[1, 0] = 30.0
    diff = checks.difference(got, expected)
    assert "1 of 4 entries differ" in diff and "index (1, 0)" in diff and "27" in diff


def test_within_tolerance_passes_and_float32_is_looser():
    expected = np.array([1.0, 1000.0])
    assert checks.difference(expected * (1 + 1e-11), expected) is None
    assert checks.difference(expected * (1 + 1e-6), expected) is not None
    assert checks.difference(expected * (1 + 1e-6), expected, checks.FLOAT32) is None


def test_nan_where_finite_expected():
    assert "non-finite" in checks.difference(np.array([np.nan, 1.0]), np.array([0.5, 1.0]))


def test_expected_nans_match_only_nans():
    # A known mistake's recorded output may hold NaNs: comparing a student's value with it must say "differs", not crash.
    mistake = np.array([np.nan, np.nan, 1.0])
    assert "2 of 3 entries differ" in checks.difference(np.array([0.5, 0.5, 1.0]), mistake)
    assert checks.difference(np.array([np.nan, np.nan, 1.0]), mistake) is None


def test_ints_are_exact_and_floats_are_not_ints():
    assert checks.difference(5**40, 5**40) is None
    assert "expected an int" in checks.difference(float(5**40), 5**40)
    assert checks.difference(np.array(7), 7) is None
    assert checks.difference(True, 1) is not None


def test_sets_report_missing_and_extra():
    diff = checks.difference({1, 2, 9}, {1, 2, 3})
    assert "missing" in diff and "unexpected" in diff


def test_hidden_tests_do_not_reveal_values():
    token = checks.REVEAL.set(False)
    try:
        assert "81" not in checks.difference(64, 81)
        assert "too small" in checks.difference(64, 81)
    finally:
        checks.REVEAL.reset(token)


def test_hidden_array_checks_say_where_but_no_figure_of_the_expected_values():
    expected = np.array([[1.0, 2.0], [3.0, 4.0]])
    got = expected + np.array([[0.0, 0.5], [0.0, 2.25]])
    shown = checks.difference_array(got, expected, checks.FLOAT64)
    assert "first at index (0, 1)" in shown and "expected 2" in shown and "largest error 2.25 at index (1, 1)" in shown
    token = checks.REVEAL.set(False)
    try:
        hidden = checks.difference_array(got, expected, checks.FLOAT64)
    finally:
        checks.REVEAL.reset(token)
    # The largest error beside the student's own value would give that expected value away.
    assert hidden.startswith("2 of 4 entries differ") and hidden.endswith("first at index (0, 1)"), hidden
    assert "2.25" not in hidden and "expected" not in hidden


def test_wrong_kinds_are_described():
    assert "got None" in checks.difference(None, np.zeros(3))
    assert "expected 3 values" in checks.difference((1, 2), (np.zeros(1),) * 3)


def test_large_arrays_are_compared_in_chunks_with_the_same_message(monkeypatch):
    from autograder.testkit import checks

    expected = np.linspace(1.0, 2.0, 3 * 7 * 11).reshape(3, 7, 11)
    got = expected.copy()
    got[0, 2, 3] += 1e-3          # the first difference
    got[2, 5, 1] += 5e-2          # the largest, in another chunk
    got[2, 6, 10] += 5e-2         # as large, later: the first of the largest is named
    whole = checks.difference_array(got, expected, checks.FLOAT64)
    monkeypatch.setattr(checks, "CHUNK", 16)
    assert checks.difference_array(got, expected, checks.FLOAT64) == whole
    assert "3 of 231 entries differ" in whole and "first at index (0, 2, 3)" in whole and "at index (2, 5, 1)" in whole
    got[1, 0, 0] = np.nan
    assert "non-finite value (nan) at index (1, 0, 0)" in checks.difference_array(got, expected, checks.FLOAT64)


def test_a_result_less_precise_than_its_inputs_gets_one_generic_hint():
    from autograder.testkit import checks

    x64, x32 = np.zeros((2, 3)), np.zeros((2, 3), dtype=np.float32)
    assert "your result is float32 but the inputs are float64" in checks.precision_hint(x32, (x64,), {})
    assert "float32" in checks.precision_hint((x64, x32), ((x64, x64),), {"scale": 0.5})
    assert checks.precision_hint(x64, (x64,), {}) is None and checks.precision_hint(x32, (x32,), {}) is None
    assert checks.precision_hint(x32, (3, 4), {}) is None  # no floating-point input to compare with


def test_expect_equal_fills_expected_and_got_as_a_call_does():
    from autograder.testkit import checks

    with pytest.raises(checks.CheckFailure) as failure:
        checks.expect_equal(128, 256, called="complexity.kernel_feature_dim(D=16, degree=2)")
    assert failure.value.parts == {"Called": "complexity.kernel_feature_dim(D=16, degree=2)", "Expected": "int 256",
                                   "Got": "int 128", "Where": "expected 256, got 128"}


def test_a_hidden_number_reads_as_one_and_the_students_own_value_is_shown():
    token = checks.REVEAL.set(False)
    try:
        assert checks.describe(9) == "an int (not shown in a hidden test)"
        assert checks.describe(0.5) == "a float (not shown in a hidden test)"
        assert checks.describe(6, own=True) == "int 6"
    finally:
        checks.REVEAL.reset(token)


def test_wrong_dict_keys_are_quoted_once_and_named():
    diff = checks.difference({"encoder": 1, "cross": 2, 3: 4}, {"encoder_self": 1, "cross": 2}, checks.FLOAT64)
    assert diff == ("expected exactly the keys 'cross', 'encoder_self', got 'cross', 'encoder', 3; missing 'encoder_self'; "
                    "unexpected 'encoder', 3")


def test_sizes_are_given_in_one_unit_system_at_a_readable_scale():
    assert [checks.size_in_bytes(n) for n in (100, 256 * 256 * 8, 8192 * 8192 * 8, 3 << 29)] == [
        "100 bytes", "512 KiB", "512 MiB", "1.5 GiB"]
