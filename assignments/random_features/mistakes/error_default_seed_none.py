# seed=None as the default, meaning a fresh random seed: the default call is not reproducible.
_reference_error = approximation_error
HINT = "Check the default of `seed`: the handout's signature gives seed=0, so the default call always returns the same number."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=None):
    if seed is None:
        seed = int(torch.randint(0, 2**31 - 1, ()))
    return _reference_error(D, num_features, n_tokens, input_scale, n_trials, seed)
