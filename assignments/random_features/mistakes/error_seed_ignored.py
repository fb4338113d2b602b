_reference_error = approximation_error
HINT = "The generator must be seeded with `seed`; yours gives the same error for every seed."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    return _reference_error(D, num_features, n_tokens, input_scale, n_trials, 0)
