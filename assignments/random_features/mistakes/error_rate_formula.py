# The rate in place of the error: "the error falls as 1/sqrt(num_features)" returned as the error itself, computing
# nothing (its ratios across num_features are right; its values are not, and it ignores the seed).
HINT = "approximation_error should measure the error of rff_attention against softmax attention on random inputs drawn from the seeded generator, not return the rate 1/sqrt(num_features) at which it falls."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    return 1.0 / math.sqrt(num_features)
