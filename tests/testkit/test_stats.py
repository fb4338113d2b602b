"""The distribution functions behind the statistical thresholds, against closed forms."""

import math

import numpy as np
import pytest

from autograder.testkit.stats import chi2_cdf, f_isf, f_sf


@pytest.mark.parametrize("k", [2, 4, 6])
def test_chi2_cdf_even_degrees_match_the_poisson_sum(k):
    x = np.array([0.0, 0.3, 1.0, 4.0, 9.5, 30.0, 120.0])
    expected = 1 - np.exp(-x / 2) * sum((x / 2) ** j / math.factorial(j) for j in range(k // 2))
    assert np.allclose(chi2_cdf(x, k), expected, rtol=1e-12, atol=1e-15)


def test_chi2_cdf_one_degree_is_a_two_sided_normal_tail():
    x = np.array([0.01, 0.5, 2.0, 10.0, 40.0])
    assert np.allclose(chi2_cdf(x, 1), [math.erf(math.sqrt(v / 2)) for v in x], rtol=1e-12)


def test_f_sf_two_numerator_degrees_has_a_closed_form():
    # For F(2, b): P(F > c) = (1 + 2c/b) ** (-b/2).
    for c, b in [(0.5, 4), (3.0, 10), (9.0, 47), (40.0, 63)]:
        assert f_sf(c, 2, b) == pytest.approx((1 + 2 * c / b) ** (-b / 2), rel=1e-8)


def test_f_isf_inverts_f_sf_at_small_tails():
    for alpha, a, b in [(1e-3, 23, 63), (1e-7, 23, 63), (1e-7, 11, 47)]:
        c = f_isf(alpha, a, b)
        assert f_sf(c, a, b) == pytest.approx(alpha, rel=1e-6)
