"""Hidden tests of problem 5 (random_features): batches, float32, long sequences, the law without a
generator, the student's own frequencies, dimensions that are not perfect squares (where a rounded square root is
wrong), and the values of approximation_error where its neighbours differ most.

Each statistical test states the chance that a correct implementation fails it (always below 1e-6).
"""

import math

import numpy as np

from autograder.testkit import (
    Background,
    Call,
    GlobalSeed,
    Seeded,
    describe,
    expect_linear_in_tokens,
    expect_true,
    known_mistake,
    problem_support,
    randn,
    revealing,
    tensor,
    test_case,
)

support = problem_support("random_features")
SPREAD_SAMPLES, BAND_SE = support.SPREAD_SAMPLES, support.BAND_SE
as_float, expect_frequency_law = support.as_float, support.expect_frequency_law

# Reference single-trial errors come from these seeds, far from any seed a test passes to the student.
SPREAD_SEED = 20_000


def frequencies(F, D, seed, dtype=np.float64):
    """F frequencies from the right law, N(0, I / sqrt(D))."""
    return randn(F, D, seed=seed, dtype=dtype) / D ** 0.25


# The settings of test_error_values_within_reference_spread (see there).
SPREAD_SETTINGS = [dict(D=64, num_features=64, n_tokens=32, input_scale=0.05), dict(D=128, num_features=32, n_tokens=24, input_scale=0.04)]
# 256 reference runs: started when this file loads, they overlap the sandbox's work.
SPREAD_ERRORS = Background(lambda: [support.reference_errors(SPREAD_SEED, **s) for s in SPREAD_SETTINGS])

# The setting of test_error_averages_fresh_draws (see there): each trial needs 3 x n_tokens x D input elements and
# num_features x D frequencies, all drawn anew.
FRESH = dict(D=16, num_features=4, n_tokens=16, input_scale=0.05, seed=1_000)
FRESH_PER_TRIAL = 3 * FRESH["n_tokens"] * FRESH["D"] + FRESH["num_features"] * FRESH["D"]


# The setting of test_error_value_with_peaked_attention (see there): scores spread enough that a softmax over the wrong
# axis moves the exact attention, features enough that the error stays light-tailed.
PEAKED = dict(D=8, num_features=1024, n_tokens=16, input_scale=0.5)
PEAKED_TRIALS = 32
PEAKED_ERRORS = Background(lambda: support.reference_errors(SPREAD_SEED + 1_000, **PEAKED))

# The setting of test_error_norms_over_the_whole_output (see there): D = 1, where rows of the exact attention come close
# to 0. The reference's 128 runs are means over as many trials as the student's calls, so both follow one law.
WHOLE = dict(D=1, num_features=256, n_tokens=32, input_scale=0.5, n_trials=128)
WHOLE_SEEDS = (50, 51, 52, 53)
WHOLE_BEYOND = 1  # how many reference runs may lie beyond the student's values on either side
WHOLE_ERRORS = Background(lambda: support.reference_errors(SPREAD_SEED + 2_000, **WHOLE))


@test_case(points=0.5, hidden=True)
def test_feature_map_batched_float32(random_features):
    Call(random_features.random_feature_map, randn(2, 3, 5, 4, seed=30), frequencies(6, 4, seed=31)).matches_reference()
    f32 = dict(dtype=np.float32)
    Call(random_features.random_feature_map, randn(7, 3, seed=32, **f32), frequencies(5, 3, seed=33, **f32)).matches_reference()
    # One batch, one head, one token, one feature: every axis of size 1 stays.
    Call(random_features.random_feature_map, randn(1, 1, 1, 4, seed=78), frequencies(1, 4, seed=79)).matches_reference()


@test_case(points=0.5, hidden=True)
def test_softmax_kernel_batched_rectangular(random_features):
    Call(random_features.softmax_kernel, randn(2, 3, 4, 9, seed=34, scale=0.5), randn(2, 3, 6, 9, seed=35, scale=0.5)).matches_reference()
    f32 = dict(dtype=np.float32)
    Call(random_features.softmax_kernel, randn(5, 16, seed=36, scale=0.4, **f32), randn(3, 16, seed=37, scale=0.4, **f32)).matches_reference()
    Call(random_features.softmax_kernel, randn(1, 1, 1, 9, seed=80, scale=0.5), randn(1, 1, 1, 9, seed=81, scale=0.5)).matches_reference()


@test_case(points=0.5, hidden=True)
def test_approx_kernel_batched_rectangular(random_features):
    Q, K = randn(2, 5, 9, seed=38, scale=0.4), randn(2, 7, 9, seed=39, scale=0.4)
    Call(random_features.approx_softmax_kernel, Q, K, frequencies(32, 9, seed=40)).matches_reference()
    f32 = dict(dtype=np.float32)
    Call(random_features.approx_softmax_kernel, randn(4, 16, seed=41, scale=0.3, **f32), randn(6, 16, seed=42, scale=0.3, **f32),
         frequencies(24, 16, seed=43, **f32)).matches_reference()
    Call(random_features.approx_softmax_kernel, randn(1, 1, 1, 9, seed=82, scale=0.4), randn(1, 1, 3, 9, seed=83, scale=0.4),
         frequencies(1, 9, seed=84)).matches_reference()


@test_case(points=0.5, hidden=True)
def test_rff_attention_batched_rectangular(random_features):
    Q, K, V = randn(2, 3, 5, 4, seed=44, scale=0.3), randn(2, 3, 8, 4, seed=45, scale=0.3), randn(2, 3, 8, 6, seed=46)
    Call(random_features.rff_attention, Q, K, V, frequencies(64, 4, seed=47)).matches_reference()
    f32 = dict(dtype=np.float32)
    Call(random_features.rff_attention, randn(6, 9, seed=48, scale=0.3, **f32), randn(10, 9, seed=49, scale=0.3, **f32), randn(10, 2, seed=50, **f32),
         frequencies(32, 9, seed=51, **f32)).matches_reference()
    # One query under batch and head axes, one value column, one batch and one head: every axis of size 1 stays.
    Call(random_features.rff_attention, randn(2, 3, 1, 4, seed=70, scale=0.3), randn(2, 3, 8, 4, seed=71, scale=0.3), randn(2, 3, 8, 1, seed=72),
         frequencies(16, 4, seed=73)).matches_reference()
    Call(random_features.rff_attention, randn(1, 1, 5, 4, seed=74, scale=0.3), randn(1, 1, 6, 4, seed=75, scale=0.3), randn(1, 1, 6, 1, seed=76),
         frequencies(16, 4, seed=77)).matches_reference()


def long_sequence_inputs(n):
    # 64 features and 8 value columns make the N_q x N_k forms pay N^2 (2F + M) multiply-accumulates, the linear forms
    # N x 2F x (D + M), and keep a linear form's N x 2F x M numbers (sums of outer products phi(k_j) v_j^T written out,
    # fair/outer_product_sums.py) at 64 MiB, far below the 512 MiB of an N x N matrix (with 64 value columns they were
    # the same size, and that linear form was refused its memory). Blockwise in numpy
    # (mistakes/rff_attention_numpy_blockwise_quadratic.py): 28 to 39 yardsticks of CPU more at 8192 tokens than at 256,
    # 1.9 to 2.6 times the CPU check's floor, and a growth of 43 to 60 against 22.6 allowed (testkit/scaling.py).
    return randn(n, 2, seed=52, scale=0.3), randn(n, 2, seed=53, scale=0.3), randn(n, 8, seed=54), frequencies(64, 2, seed=55)


def capped_sequence_inputs(n):
    # The capped call (testkit/scaling.py): 128 features and 2 value columns, so that the N_q x N_k forms pay
    # N^2 (2F + M) = 258 N^2 multiply-accumulates and the linear forms N x 2F x (D + M), with little to send and record,
    # and a linear form's N x 2F x M numbers take 64 MiB (inside Gradescope's room).
    return randn(n, 2, seed=86, scale=0.3), randn(n, 2, seed=87, scale=0.3), randn(n, 2, seed=88), frequencies(128, 2, seed=89)


@test_case(points=1, hidden=True)
def test_rff_attention_long_sequence_in_linear_memory(random_features):
    # Linear time and memory, shown with little work: testkit/scaling.py says how, and what was measured.
    expect_linear_in_tokens(random_features.rff_attention, long_sequence_inputs, never="meet every key for every query",
                            instead="sum phi(k_j) v_j^T and phi(k_j) over the keys once, then reuse them for every query",
                            capped_inputs=capped_sequence_inputs)


@test_case(points=0.25, hidden=True)
def test_frequencies_law_without_generator(random_features):
    # generator=None draws from torch's global random state. False-failure chance at most 2e-7, by the exact bounds
    # in frequency_law_problems (moments, row lengths, independence of consecutive rows).
    D, n = 9, 20_000
    call = Call(random_features.sample_frequencies, D, n)
    expect_frequency_law(call, D, n, budget=1e-7)
    # Each call draws on from the global state, so two calls in a row share no number (correct draws of float64 normals
    # repeat one with chance below 1e-13); a generator made inside the call, seeded or not, or torch.manual_seed called
    # inside it, starts the same stream again each time. (torch draws 16 or more normals in blocks of 16 and fewer one by
    # one, two streams that share nothing: both calls draw at least 16.)
    first, second = Call(random_features.sample_frequencies, 3, 16), Call(random_features.sample_frequencies, 3, 32)
    a, b = (np.asarray(call.result(), dtype=np.float64).ravel() for call in (first, second))
    shared = np.intersect1d(a, b).size
    expect_true(shared == 0, f"two calls in a row without a generator drew {shared} of the same numbers: with generator=None, "
                "draw from torch's global random state (torch.randn(..., generator=None)), which each draw moves on and "
                "torch.manual_seed sets, never from a generator or a seed of your own\n"
                + known_mistake("random_features", "freq_fixed_seed_without_generator"), called=second.shown)


@test_case(points=0.25, hidden=True)
def test_frequencies_follow_torch_manual_seed(random_features):
    # generator=None draws from torch's global random state, so torch.manual_seed decides the draw: the same seed, set
    # where the call runs just before it, gives the same frequencies, another seed others. Correct answers may draw in
    # another order (fair/other_draw_order.py), so a draw is compared with the student's own, not the reference's.
    D, n = 3, 32
    calls = [Call(random_features.sample_frequencies, D, n, generator=GlobalSeed(seed)) for seed in (21, 21, 22)]
    first, again, other = (np.asarray(call.result(), dtype=np.float64) for call in calls)
    hint = ("with generator=None, draw from torch's global random state (torch.randn(..., generator=None)), which "
            "torch.manual_seed sets\n" + known_mistake("random_features", "freq_numpy_global_generator"))
    expect_true(np.array_equal(first, again), "after the same torch.manual_seed(21) two calls without a generator drew "
                f"different frequencies: {hint}", called=calls[1].shown)
    expect_true(not np.array_equal(first, other), "after torch.manual_seed(21) and torch.manual_seed(22) two calls without "
                f"a generator drew the same frequencies: {hint}", called=calls[2].shown)


@test_case(points=0.5, hidden=True)
def test_frequencies_positional_generator_and_shape(random_features):
    first = Call(random_features.sample_frequencies, 3, 7, Seeded(11))
    again = Call(random_features.sample_frequencies, 3, 7, Seeded(11))
    a, b = np.asarray(first.result()), np.asarray(again.result())
    expect_true(a.shape == (7, 3), f"expected shape (7, 3): num_features rows of dimension D, got {a.shape}", called=first.shown)
    expect_true(np.array_equal(a, b), "a generator passed as the third positional argument should decide the frequencies", called=first.shown)


@test_case(points=0.5, hidden=True)
def test_own_frequencies_give_an_unbiased_kernel(random_features):
    # The student's frequencies feed the student's kernel. If they follow N(0, I/sqrt(D)), the estimate of each
    # Gaussian factor is a mean of n = 65536 values cos(w.(q-k)) in [-1, 1]; Hoeffding gives
    # P(|mean - kernel| >= t) <= 2 exp(-n t^2 / 2), so over 12 entries the false-failure chance is 1e-7.
    D, n = 4, 65_536
    call = Call(random_features.sample_frequencies, D, n, generator=Seeded(12))
    W = np.asarray(call.result(), dtype=np.float64)
    expect_true(W.shape == (n, D), f"expected shape ({n}, {D}), got {W.shape}", called=call.shown)
    Q, K = randn(3, D, seed=56, scale=0.3), randn(4, D, seed=57, scale=0.3)
    estimate = np.asarray(Call(random_features.approx_softmax_kernel, Q, K, tensor(W)).result(), dtype=np.float64)
    exact = Call(random_features.softmax_kernel, Q, K).reference()
    expect_true(estimate.shape == exact.shape, f"approx_softmax_kernel of 3 queries and 4 keys should have shape (3, 4), got {estimate.shape}")
    t = math.sqrt(2 * math.log(2 * 12 / 1e-7) / n)
    scale = np.exp((Q * Q).sum(-1) / (2 * math.sqrt(D)))[:, None] * np.exp((K * K).sum(-1) / (2 * math.sqrt(D)))[None, :]
    expect_true((np.abs(estimate - exact) / scale).max() <= t,
                "with 65536 of your own frequencies, approx_softmax_kernel does not approach softmax_kernel: check the law of the frequencies")


@test_case(points=0.5, hidden=True)
def test_error_reproducible_from_seed(random_features):
    # The seed decides the random draws: the same seed gives the same error, another seed another draw of the same law.
    # Each of the two seeds' values must lie in the band of 3-trial means at SPREAD_SETTINGS[0] (the reference's 128
    # single-trial errors there, BAND_SE standard errors of the log-mean as in test_error_values_within_reference_spread:
    # 1.7e-9 each, 3.4e-9 in all; 3000 simulated correct students gave |z| <= 3.7, and no single trial of 12000 came
    # near the band's edges), so a value that follows the seed by a formula, not by draws, is caught.
    setting, n_trials = SPREAD_SETTINGS[0], 3
    first = Call(random_features.approximation_error, n_trials=n_trials, seed=5, **setting)
    again = Call(random_features.approximation_error, n_trials=n_trials, seed=5, **setting)
    other = Call(random_features.approximation_error, n_trials=n_trials, seed=6, **setting)
    a, b, c = (as_float(x.result(), x.shown) for x in (first, again, other))
    expect_true(a == b, "the same seed gave two different errors: draw everything from a torch.Generator seeded with `seed`", called=first.shown)
    expect_true(a != c, "seeds 5 and 6 gave the same error: the inputs and frequencies should come from the seeded generator", called=other.shown)
    errors = SPREAD_ERRORS.result()[0]
    half = BAND_SE * errors.std(ddof=1) / errors.mean() * math.sqrt(1 / n_trials + 1 / SPREAD_SAMPLES)
    for call, value in ((first, a), (other, c)):
        expect_true(value > 0 and abs(math.log(value) - math.log(errors.mean())) <= half,
                    f"the error {value:.4g} is far from what these arguments give (the mean over {n_trials} trials of "
                    "||rff_attention - softmax attention||_F / ||softmax attention||_F on random inputs drawn from the seed): "
                    "compute it from the draws, not by a formula", called=call.shown)
    # Left out, the optional arguments take the handout's defaults; written out, they must give the same number.
    default = Call(random_features.approximation_error, 4, 8)
    written_out = Call(random_features.approximation_error, 4, 8, n_tokens=64, input_scale=0.3, n_trials=8, seed=0)
    d, w = as_float(default.result(), default.shown), as_float(written_out.result(), written_out.shown)
    expect_true(d == w, f"{default.shown} should equal {written_out.shown} (the handout's defaults written out), but the two differ: "
                "check the defaults n_tokens=64, input_scale=0.3, n_trials=8, seed=0", called=default.shown)


@test_case(points=0.5, hidden=True)
def test_error_values_within_reference_spread(random_features):
    # For each setting, the band is the reference's mean single-trial error (128 other seeds) widened by BAND_SE
    # standard errors of the log of a T-trial mean, cv * sqrt(1/T + 1/128) (delta method). Under the Gaussian model
    # for the log of the mean the false-failure chance is 2 x 1.7e-9. Large D and small inputs keep the error
    # light-tailed (see the public test); ||exact||_F is about input_scale * sqrt(D), between 0.26 and 0.57 in 5000
    # draws, so an absolute error falls far below the band.
    # Check: 3000 simulated correct students (three drawing orders) gave |z| <= 3.4 against BAND_SE, skewness <= 0.07.
    n_trials = 16
    for s, errors in zip(SPREAD_SETTINGS, SPREAD_ERRORS.result()):
        call = Call(random_features.approximation_error, n_trials=n_trials, seed=3, **s)
        value = as_float(call.result(), call.shown)
        cv = errors.std(ddof=1) / errors.mean()
        half = BAND_SE * cv * math.sqrt(1 / n_trials + 1 / SPREAD_SAMPLES)
        expect_true(abs(math.log(value) - math.log(errors.mean())) <= half,
                    f"the error {value:.4g} is far from what these arguments give (it should be the mean over trials of "
                    "||rff_attention - softmax attention||_F / ||softmax attention||_F)", called=call.shown)
    # With one token both attentions return v_1, so the error is rounding only (at most 7e-16 in float64 over 300 seeds,
    # and float32 rounding is near 1e-7, far below the 1e-4 accepted): the inputs must have n_tokens rows. Inputs of 64
    # rows gave errors between 0.10 and 1.4 in all 300 seeds tried (bench/bench_random_features_power.py).
    call = Call(random_features.approximation_error, 8, 4, n_tokens=1, n_trials=4, seed=7)
    value = call.result()
    if isinstance(value, np.ndarray) and value.size == 1:
        value = float(value.reshape(()))
    got = "an error above 1e-4" if isinstance(value, float) else describe(value)
    expect_true(isinstance(value, float) and 0 <= value <= 1e-4,
                f"with n_tokens=1 softmax attention and rff_attention both return the single value row, so the error should be 0 up to "
                f"rounding; got {got}: do your inputs have n_tokens rows?", called=call.shown)


@test_case(points=1, hidden=True)
def test_error_averages_fresh_draws(random_features):
    # Every trial draws new Q, K, V and new frequencies: one more trial draws at least FRESH_PER_TRIAL more random
    # elements from torch (counted where the call runs, sandbox/worker/metering.py), and nearly all of them are values
    # not drawn before (a generator seeded again in each trial draws the same values again). Reused frequencies draw
    # 64 elements fewer per trial, reused inputs 768 fewer, a fixed number of trials none; a correct student draws
    # float64 normals, which repeat with chance about 1e-13 here (float32 ones about 1e-3 for one repeat, far from the
    # 83 the check allows).
    # One trial's draws are what the second trial adds, however they are drawn (one tensor per input, all trials in one
    # batch, frequencies first): the call at n_trials=1 must draw fewer than two of them. An average over n_trials + 1
    # trials draws two trials' worth at n_trials=1 (its value has the right level, only a smaller spread, which no band
    # of these tests can see at a price the speed budget allows). A correct implementation draws exactly one trial's worth
    # at n_trials=1, and could fail only by drawing, outside its trials, as much as a whole trial again, which nothing in
    # SPEC asks for: every fair variant draws nothing outside its trials.
    costs, calls = {}, {}
    for n_trials in (1, 2):
        calls[n_trials] = call = Call(random_features.approximation_error, n_trials=n_trials, **FRESH)
        costs[n_trials] = call.cost(work=True)
        as_float(call.result(), call.shown)
    drawn = costs[2]["random_elements"] - costs[1]["random_elements"]
    new = costs[2]["random_distinct"] - costs[1]["random_distinct"]
    expect_true(drawn >= FRESH_PER_TRIAL,
                f"a second trial drew {drawn} more random numbers from torch ({costs[1]['random_elements']} with n_trials=1, "
                f"{costs[2]['random_elements']} with n_trials=2), fewer than the {FRESH_PER_TRIAL} it needs: every trial should draw "
                f"new Q, K, V (3 x n_tokens x D = {FRESH_PER_TRIAL - FRESH['num_features'] * FRESH['D']} numbers) and new "
                f"frequencies (num_features x D = {FRESH['num_features'] * FRESH['D']}) from the seeded torch.Generator, "
                "and approximation_error should run exactly n_trials trials", called=calls[2].shown)
    expect_true(new >= 0.9 * FRESH_PER_TRIAL,
                f"a second trial drew only {new} random values that the first had not drawn already: every trial should draw "
                "new Q, K, V and new frequencies from one torch.Generator seeded once (seeding it again in each trial "
                "draws the same numbers again)", called=calls[2].shown)
    first = costs[1]["random_elements"]
    expect_true(first < 2 * drawn,
                f"with n_trials=1 approximation_error drew {first} random numbers from torch, with n_trials=2 {drawn} more: one trial "
                "draws what the second trial added, so the call with n_trials=1 drew as much as two trials (or more); it should "
                "average exactly n_trials trials (range(n_trials), each drawing its own Q, K, V and frequencies)\n"
                + known_mistake("random_features", "error_mean_of_extra_trial"), called=calls[1].shown)


@test_case(points=1, hidden=True)
def test_kernels_and_attention_at_dimensions_that_are_not_squares(random_features):
    # D = 7, 10 and 8: sqrt(D) is irrational, so an integer square root (math.isqrt, int(D ** 0.5)) or a rounded D ** 0.25
    # changes every value; at D = 4, 9, 16 or 64 it happens to be right. Also a single key, whose value every query takes.
    Call(random_features.softmax_kernel, randn(2, 3, 7, seed=60, scale=0.5), randn(2, 5, 7, seed=61, scale=0.5)).matches_reference()
    Call(random_features.approx_softmax_kernel, randn(3, 10, seed=62, scale=0.3), randn(4, 10, seed=63, scale=0.3),
         frequencies(16, 10, seed=64)).matches_reference()
    Q, K, V = randn(5, 8, seed=65, scale=0.3), randn(3, 8, seed=66, scale=0.3), randn(3, 1, seed=67)
    Call(random_features.rff_attention, Q, K, V, frequencies(6, 8, seed=68)).matches_reference()
    Call(random_features.rff_attention, Q, K[:1], V[:1], frequencies(6, 8, seed=68)).matches_reference()


@test_case(points=1, hidden=True)
def test_frequencies_law_at_dimension_8(random_features):
    # sqrt(8) = 2.83 and 8 ** 0.25 = 1.68: an integer square root gives variance 1/2 and a rounded 8 ** 0.25 gives 1/4
    # in place of 1/sqrt(8) = 0.354, both far outside the bands (at D = 16 and 9 both happen to be right or close).
    # False-failure chance at most 2e-7, by the exact bounds in frequency_law_problems.
    D, n = 8, 20_000
    call = Call(random_features.sample_frequencies, D, n, generator=Seeded(13))
    expect_frequency_law(call, D, n, budget=1e-7)


@test_case(points=1, hidden=True)
def test_error_value_with_peaked_attention(random_features):
    # At D = 8, input_scale = 0.5 the scores spread enough that the softmax over the queries (the wrong axis) differs
    # from the softmax over the keys, and 1024 features keep the error light-tailed. The band is the reference's mean
    # single-trial error (128 other seeds) widened by BAND_SE standard errors of the log of a 32-trial mean, as in
    # test_error_values_within_reference_spread: false-failure chance 1.7e-9 under the Gaussian model of the log-mean.
    # Check (3000 simulated correct students): |z| <= 3.7 against BAND_SE = 6.5. Power: an exact attention normalised over
    # the queries sat 11 to 22 band units away, caught in 3000 of 3000 (docs/spec_coverage.md).
    call = Call(random_features.approximation_error, n_trials=PEAKED_TRIALS, seed=4, **PEAKED)
    value = as_float(call.result(), call.shown)
    errors = PEAKED_ERRORS.result()
    cv = errors.std(ddof=1) / errors.mean()
    half = BAND_SE * cv * math.sqrt(1 / PEAKED_TRIALS + 1 / SPREAD_SAMPLES)
    expect_true(abs(math.log(value) - math.log(errors.mean())) <= half,
                f"the error {value:.4g} is far from what these arguments give: the exact attention is the softmax over the keys "
                "(each row of weights sums to 1) of Q K^T / sqrt(D), and the error ||rff_attention - exact||_F / ||exact||_F "
                "over the whole output", called=call.shown)


@test_case(points=1, hidden=True)
def test_error_with_one_trial_at_four_seeds(random_features):
    # n_trials = 1 is the smallest legal count: the value is one trial's error, so its law is that of the reference's
    # single-trial errors (SPREAD_SETTINGS[0], 128 other seeds). The mean of the logs at 4 seeds against theirs, with a band
    # of BAND_SE standard errors sd(log) * sqrt(1/4 + 1/128): false-failure chance 1.7e-9 under the Gaussian model
    # (sd of the log 0.12, skewness small here). Summing n_trials + 1 trials and dividing by n_trials doubles the
    # value (caught: the band is +-0.39 in the log, the shift 0.69); n_trials - 1 trials give no trial at all.
    setting = SPREAD_SETTINGS[0]
    logs = []
    for seed in (40, 41, 42, 43):
        call = Call(random_features.approximation_error, n_trials=1, seed=seed, **setting)
        logs.append(math.log(as_float(call.result(), call.shown)))
    reference = np.log(SPREAD_ERRORS.result()[0])
    half = BAND_SE * reference.std(ddof=1) * math.sqrt(1 / len(logs) + 1 / SPREAD_SAMPLES)
    centre = float(np.mean(logs))
    band = (f"is about {math.exp(reference.mean()):.4g} here (accepted [{math.exp(reference.mean() - half):.4g}, "
            f"{math.exp(reference.mean() + half):.4g}])" if revealing() else "lies well away from that")
    expect_true(abs(centre - reference.mean()) <= half,
                f"with n_trials=1 your errors average {math.exp(centre):.4g} (geometric mean over 4 seeds), while one trial's error "
                f"{band}: average over exactly n_trials trials", called=call.shown)


@test_case(points=1, hidden=True)
def test_error_norms_over_the_whole_output(random_features):
    # With D = 1 a row of the exact attention is one number, a weighted mean of the values that changes sign as the query
    # moves, so some rows come close to 0. A ratio of norms taken row by row is huge for those rows: its law has a tail like
    # 1/x (no finite mean), so its mean over 128 trials keeps growing with the trials, while the ratio over the whole
    # output (the definition) settles near its mean. At D = 8 or 64 the two differ by 1.5 to 12%, inside every band.
    # The per-trial errors have a heavy right tail here too (about x^-3), so other aggregates of the 128 trials move far
    # from their mean: their median and the ratio of the summed norms lie below it, their root mean square above it.
    # The check compares ranks and needs no model of either law: for a correct implementation (any order of draws) the
    # 4 values here and the reference's 128 runs (other seeds, the same arguments) are 132 independent draws of one law,
    # so the 4 land on 4 uniformly random ranks among the 132, and all 4 lie above all but at most WHOLE_BEYOND = 1 of the
    # reference runs with chance C(5, 4) / C(132, 4) = 4.1e-7, all 4 below all but one with the same chance: 8.2e-7 in all,
    # the false-failure chance.
    # Power (bench/bench_error_neighbours.py and bench/bench_error_aggregates.py, fresh draws): see docs/spec_coverage.md.
    calls = [Call(random_features.approximation_error, seed=seed, **WHOLE) for seed in WHOLE_SEEDS]
    values = [as_float(call.result(), call.shown) for call in calls]
    reference = np.sort(WHOLE_ERRORS.result())
    smallest = min(range(len(values)), key=values.__getitem__)
    largest = max(range(len(values)), key=values.__getitem__)
    shown = f"with seeds {', '.join(map(str, WHOLE_SEEDS))} your errors are {', '.join(f'{v:.4g}' for v in values)}: each is"
    runs = (f"{WHOLE_BEYOND} of {len(reference)} runs of the definition with the same arguments and other seeds"
            f"{f' (median {np.median(reference):.4g})' if revealing() else ''}, which a correct implementation does with chance 4.1e-7")
    expect_true(values[smallest] <= reference[-1 - WHOLE_BEYOND],
                f"{shown} larger than all but {runs}. The error is the mean over the trials of "
                "||rff_attention - exact||_F / ||exact||_F with the norms over the whole (n_tokens, D) output, not a ratio "
                "per row averaged over the rows (huge for rows of the exact attention close to 0, which D = 1 makes common), "
                "nor the root mean square of the trials' errors\n"
                + known_mistake("random_features", "error_norms_per_row"), called=calls[smallest].shown)
    expect_true(values[largest] >= reference[WHOLE_BEYOND],
                f"{shown} smaller than all but {runs}. The error is the plain mean over the trials of "
                "||rff_attention - exact||_F / ||exact||_F: not their median, nor the sum of the error norms divided by "
                "the sum of the exact norms (the trials' errors have a long right tail here, which both leave out)",
                called=calls[largest].shown)
