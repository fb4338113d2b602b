"""Exact distribution functions for the statistical tests (numpy and math only, no scipy).

Tests use them to turn a false-failure budget into a threshold: the chi-square law of sums of
squared standard normals, and Fisher's F law of a ratio of two sample variances.
"""

from __future__ import annotations

import math

import numpy as np

_BETA_STEPS = 200_000  # Simpson intervals for the incomplete beta integral (even)


def chi2_cdf(x: np.ndarray | float, k: int) -> np.ndarray:
    """P(X <= x) for X ~ chi-square with k degrees of freedom (the regularised lower incomplete gamma).

    Sums the series P(a, y) = exp(-y) y^a sum_j y^j / Gamma(a + j + 1) with a = k/2, y = x/2, which
    converges for every y; the terms are added until they no longer change the sum.
    """
    y = np.asarray(x, dtype=np.float64) / 2.0
    a = k / 2.0
    cdf = np.zeros_like(y)
    positive = y > 0
    y = y[positive]
    with np.errstate(divide="ignore"):
        term = np.exp(a * np.log(y) - y - math.lgamma(a + 1.0))
    total = term.copy()
    j = 0
    while True:
        j += 1
        term = term * y / (a + j)
        total += term
        if j > y.max(initial=0.0) and not (term > 1e-17 * total).any():
            break
    cdf[positive] = np.minimum(total, 1.0)
    return cdf


def f_sf(c: float, a: int, b: int) -> float:
    """P(F > c) for F ~ F(a, b), Fisher's law of (chi2_a / a) / (chi2_b / b).

    That tail is the regularised incomplete beta I_x(b/2, a/2) at x = b / (b + a c), integrated here
    with Simpson's rule; b >= 4 keeps the integrand smooth at 0.
    """
    if b < 4:
        raise ValueError("f_sf needs b >= 4")
    if c <= 0:
        return 1.0
    p, q = b / 2.0, a / 2.0
    x0 = b / (b + a * c)
    t = np.linspace(0.0, x0, _BETA_STEPS + 1)
    log_norm = math.lgamma(p + q) - math.lgamma(p) - math.lgamma(q)
    density = np.zeros_like(t)
    density[1:] = np.exp(log_norm + (p - 1) * np.log(t[1:]) + (q - 1) * np.log1p(-t[1:]))
    h = x0 / _BETA_STEPS
    return float(h / 3 * (density[0] + density[-1] + 4 * density[1:-1:2].sum() + 2 * density[2:-1:2].sum()))


def f_isf(alpha: float, a: int, b: int) -> float:
    """The c with P(F > c) = alpha for F ~ F(a, b) (bisection on f_sf, relative accuracy 1e-9)."""
    low, high = 1e-6, 1.0
    while f_sf(high, a, b) > alpha:
        low, high = high, 2 * high
    while high / low > 1 + 1e-9:
        mid = math.sqrt(low * high)
        low, high = (mid, high) if f_sf(mid, a, b) > alpha else (low, mid)
    return high
