"""Helpers shared by the public and hidden tests of problem 5 (random_features)."""

import math

import numpy as np

from autograder.testkit import chi2_cdf, describe, fail, known_mistake, reference_value, revealing

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
    """Ways in which an (n, D) sample departs from i.i.d. N(0, 1/sqrt(D)) entries, at total false-alarm chance <= 2 budget.

    ``budget`` goes to the moments (below) and ``budget`` to the shape of the law (frequency_shape_problems).

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
        shown = f"has variance {worst:.4g}" if revealing() else "has the wrong variance"
        return [f"a coordinate of the frequencies {shown}; w ~ N(0, I/sigma2) with sigma2 = sqrt(D) = {math.sqrt(D):.4g} "
                f"gives variance 1/sqrt(D) = {v:.4g}"]
    problems = []
    z = math.sqrt(2 * math.log(2 * D / (budget / 5)))
    means = W.mean(axis=0)
    if np.abs(means).max() > z * math.sqrt(v / n):
        shown = f"is {means[np.abs(means).argmax()]:.4g}" if revealing() else "is far from 0"
        problems.append(f"a column mean {shown}; the frequencies should have mean 0")
    pairs = D * (D - 1) // 2
    if pairs:
        x = math.log(4 * pairs / (2 * budget / 5))
        cov = (W.T @ W) / (n * v)
        off = np.abs(cov[~np.eye(D, dtype=bool)]).max()
        if off > 2 * math.sqrt(x / n) + x / n:
            shown = f" (normalised covariance {off:.3g})" if revealing() else ""
            problems.append(f"two coordinates of the frequencies are correlated{shown}; they should be independent")
    return problems + frequency_shape_problems(W, D, n, v, budget)


def frequency_shape_problems(W, D, n, v, budget):
    """What the moments cannot see: Gaussian row lengths and independent rows, at total false-alarm chance <= budget.

    Repeated rows first, anywhere in the sample: two rows with the same absolute coordinates up to order (a row
    repeated, negated, or with coordinates negated or permuted, as in [W; W], [W; -W] or a block shifted against
    another). Two independent float64 normals are the same float with chance below TIE = 1e-14 (a Gaussian rounded to
    float64 puts at most 2^-52 max_t t phi(t) = 5.4e-17 on one float, whatever its spread; the rest is room for the grain
    of the generator's uniforms), so two independent rows match this way with chance at most D! (2 TIE)^D (each of the
    D! pairings of their coordinates needs D coincidences, each up to sign), and some pair of the n rows with chance at
    most n^2 / 2 of that: 2e-97 at D = 8, n = 20000. That chance is taken out of the budget of consecutive rows (below);
    where it exceeds a quarter of the budget (D = 1 at n = 20000) this check is left out.
    Then half the budget: the squared lengths |w|^2 / v of Gaussian rows are i.i.d. chi-square(D), so by the
    Dvoretzky-Kiefer-Wolfowitz inequality (Massart's constant) their empirical distribution function lies
    within sqrt(log(2 / b) / (2n)) of the chi-square one except with chance b. (Rows rescaled to one
    common length have the right mean and variance but fail this.) The other half: for consecutive rows
    a, b, the product a.b / (|a| sqrt(v)) is exactly N(0, 1) and independent across disjoint pairs, so
    the sum of its squares is chi-square(n/2), bounded on both sides by Laurent-Massart. (Rows that are
    orthogonalised in blocks, as in orthogonal random features, fail this.) Power at D = 9, n = 20000, measured
    over 300 seeds in bench/bench_random_features_power.py: rows of one common length and block-orthogonal
    rows were each caught 300 times in 300; correct samples failed in none.
    """
    problems = []
    repeat_chance = repeated_row_chance(D, n)
    if repeat_chance <= budget / 4:
        repeats = repeated_rows(W)
        if repeats:
            i, j = repeats[0]
            problems.append(f"{len(repeats)} of the {n} frequency vectors repeat another one up to signs or order (rows {i} and {j}: "
                            f"{describe_relation(W[i], W[j])}): each row "
                            "should be a fresh independent draw, not a reused or negated one (no [W; W], no antithetic [W; -W])")
    else:
        repeat_chance = 0.0
    lengths = np.sort((W * W).sum(axis=1) / v)
    cdf = chi2_cdf(lengths, D)
    rank = np.arange(1, n + 1) / n
    gap = max(float((rank - cdf).max()), float((cdf - (rank - 1 / n)).max()))
    allowed = math.sqrt(math.log(2 / (budget / 2)) / (2 * n))
    if gap > allowed:
        shown = f" (largest gap between the distribution functions {gap:.3g}, accepted {allowed:.3g})" if revealing() else ""
        problems.append("the lengths of the frequency vectors do not vary as the lengths of Gaussian vectors do: |w|^2 sqrt(D) "
                        f"should follow a chi-square law with D degrees of freedom{shown}")
    pairs = n // 2
    first, second = W[0:2 * pairs:2], W[1:2 * pairs:2]
    normalised = (first * second).sum(axis=1) / (np.linalg.norm(first, axis=1) * math.sqrt(v))
    total, x = float((normalised**2).sum()), math.log(2 / (budget / 2 - repeat_chance))
    if total < pairs - 2 * math.sqrt(pairs * x) or total > pairs + 2 * math.sqrt(pairs * x) + 2 * x:
        direction = "closer to orthogonal" if total < pairs else "more aligned"
        problems.append(f"consecutive frequency vectors are {direction} than independent draws would be: each row should be "
                        "drawn independently of the others (no orthogonalisation or reuse)")
    return problems


# A bound on the chance that two independent float64 normal draws are the same float (frequency_shape_problems).
TIE = 1e-14


def repeated_row_chance(D, n):
    """A bound on the chance that some two of n independent N(0, v I) rows of dimension D agree in absolute coordinates up to order."""
    return n * (n - 1) / 2 * math.factorial(D) * (2 * TIE) ** D


def repeated_rows(W):
    """Pairs (first, later) of row indices whose sorted absolute coordinates are the same floats, at most one pair per later row."""
    keys = np.sort(np.abs(W), axis=1)
    if keys.shape[0] < 2 or not keys.shape[1]:
        return _same_rows(keys)
    # Rows alike share their largest coordinate: only rows whose largest recurs are compared whole (a twentieth of the work).
    largest = keys[:, -1]
    values, counts = np.unique(largest, return_counts=True)
    shared = np.flatnonzero(np.isin(largest, values[counts > 1]))
    return [(int(shared[first]), int(shared[later])) for first, later in _same_rows(keys[shared])]


def _same_rows(keys):
    """repeated_rows on rows already reduced to their sorted absolute coordinates."""
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    return [(int(first[k]), int(i)) for i, k in enumerate(inverse) if first[k] != i]


def describe_relation(a, b):
    """How row b repeats row a."""
    if np.array_equal(a, b):
        return "the same vector"
    if np.array_equal(a, -b):
        return "one is the negation of the other"
    return "the same coordinates up to signs and order"


def reference_errors(first_seed, D, num_features, n_trials=1, **kwargs):
    """The reference's errors (single-trial unless ``n_trials`` says otherwise) for the SPREAD_SAMPLES seeds from ``first_seed`` on."""
    return np.array([reference_value("random_features", "approximation_error", (D, num_features), dict(n_trials=n_trials, seed=first_seed + i, **kwargs))
                     for i in range(SPREAD_SAMPLES)])


# Laws of known mistakes by the variance of their frequencies, for D: (mistake, variance). Two mistakes share 1/D.
VARIANCE_MISTAKES = (("freq_standard_normal", lambda D: 1.0), ("freq_variance_sqrt_D", lambda D: math.sqrt(D)),
                     ("freq_std_is_inverse_sigma2", lambda D: 1.0 / D), ("sigma2_is_D", lambda D: 1.0 / D))


def frequency_law_mistakes(W, D, n):
    """The known mistakes whose law the sample follows (recognised from the statistics, not by comparing values)."""
    W = np.asarray(W, dtype=np.float64)
    if W.shape == (D, n) and D != n:
        return ["freq_shape_D_by_F"]
    if W.shape != (n, D) or not np.isfinite(W).all():
        return []
    variance = float((W * W).mean())
    # Each coordinate's variance is measured over n * D draws: within 5% of the law's, far from the others'.
    found = [name for name, law in VARIANCE_MISTAKES if abs(math.log(variance / law(D))) < 0.05 and abs(math.log(variance * math.sqrt(D))) > 0.2]
    if D > 1 and np.allclose(W, W[:, :1]):
        found.append("freq_scalar_per_feature")
    if (W >= 0).all():
        found.append("freq_absolute_values")
    lengths = np.sqrt((W * W).sum(axis=1))
    if lengths.std() < 1e-6 * lengths.mean():
        found.append("freq_fixed_norm_rows")
    half = n // 2
    if half and (np.array_equal(W[half:2 * half], -W[:half]) or np.array_equal(W[half:2 * half], W[:half])):
        found.append("freq_antithetic_halves")
    if n >= 2 * D:
        block = W[:D] / np.linalg.norm(W[:D], axis=1, keepdims=True)
        if np.allclose(block @ block.T, np.eye(D), atol=1e-9):
            found.append("freq_orthogonal_blocks")
    return found


def expect_frequency_law(call, D, n, budget):
    """Fail when the student's (n, D) frequencies depart from N(0, I/sqrt(D)), naming any known mistake whose law they follow."""
    W = call.result()
    problems = frequency_law_problems(W, D, n, budget)
    if problems:
        fail("\n".join(problems + [known_mistake("random_features", m) for m in frequency_law_mistakes(W, D, n)]), called=call.shown)
