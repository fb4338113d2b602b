"""Helpers shared by the public and hidden tests of problem 5 (random_features)."""

import math

import numpy as np

from autograder.checks import REVEAL
from autograder.testkit import describe, fail, reference_value

# Reference single-trial errors per setting (each test file draws them from its own seeds).
SPREAD_SAMPLES = 128
# Half-width of every statistical band of approximation_error, in standard errors. If the log of a
# mean of trials is Gaussian, (student - reference mean) / (estimated sd * sqrt(1/T + 1/R)) follows
# Student's t with R - 1 = 127 degrees of freedom, and P(|t_127| > 6.5) = 1.7e-9.
BAND_SE = 6.5


def as_float(value, shown):
    """The student's scalar as a Python float (a 0-d array is accepted), or a failed check."""
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind == "f":
        value = float(value.reshape(()))
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        fail(f"expected a positive finite float (a relative error), got {describe(value)}", called=shown)
    return float(value)


def frequency_law_problems(W, D, n, budget):
    """Ways in which an (n, D) sample departs from i.i.d. N(0, 1/sqrt(D)) entries, at total false-alarm chance <= budget.

    Every bound is exact for Gaussian entries: a Chernoff bound for the column means, and the
    Laurent-Massart (2000) chi-square bounds P(X - n >= 2 sqrt(n x) + 2 x) <= e^-x and
    P(n - X >= 2 sqrt(n x)) <= e^-x for the variances and for the off-diagonal covariances
    (sum x_i y_i = v (A - B) / 2 with A, B independent chi-square(n) when x, y are independent).
    A fifth of the budget goes to the means and two fifths each to the variances and covariances;
    when the variances are wrong only that is reported.
    """
    W = np.asarray(W, dtype=np.float64)
    if W.shape != (n, D):
        return [f"expected shape ({n}, {D}) (one frequency per row), got {W.shape}"]
    if not np.isfinite(W).all():
        return ["the frequencies contain non-finite values"]
    v = 1.0 / math.sqrt(D)
    x = math.log(2 * D / (2 * budget / 5))
    ratio = (W * W).mean(axis=0) / v
    low, high = 1 - 2 * math.sqrt(x / n), 1 + 2 * math.sqrt(x / n) + 2 * x / n
    if ratio.min() < low or ratio.max() > high:
        worst = ratio[np.abs(ratio - 1).argmax()] * v
        # With the wrong spread the other statistics are off too; this one message says what is wrong.
        shown = f"has variance {worst:.4g}" if REVEAL.get() else "has the wrong variance"
        return [f"a coordinate of the frequencies {shown}; w ~ N(0, I/sigma2) with sigma2 = sqrt(D) = {math.sqrt(D):.4g} "
                f"gives variance 1/sqrt(D) = {v:.4g}"]
    problems = []
    z = math.sqrt(2 * math.log(2 * D / (budget / 5)))
    means = W.mean(axis=0)
    if np.abs(means).max() > z * math.sqrt(v / n):
        shown = f"is {means[np.abs(means).argmax()]:.4g}" if REVEAL.get() else "is far from 0"
        problems.append(f"a column mean {shown}; the frequencies should have mean 0")
    pairs = D * (D - 1) // 2
    if pairs:
        x = math.log(4 * pairs / (2 * budget / 5))
        cov = (W.T @ W) / (n * v)
        off = np.abs(cov[~np.eye(D, dtype=bool)]).max()
        if off > 2 * math.sqrt(x / n) + x / n:
            shown = f" (normalised covariance {off:.3g})" if REVEAL.get() else ""
            problems.append(f"two coordinates of the frequencies are correlated{shown}; they should be independent")
    return problems


def reference_errors(first_seed, D, num_features, **kwargs):
    """The reference's single-trial errors for the SPREAD_SAMPLES seeds from ``first_seed`` on."""
    return np.array([reference_value("random_features", "approximation_error", (D, num_features), dict(n_trials=1, seed=first_seed + i, **kwargs))
                     for i in range(SPREAD_SAMPLES)])
