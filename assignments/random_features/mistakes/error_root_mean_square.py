# The root mean square of the per-trial errors in place of their mean (larger where they spread).
HINT = "approximation_error is the plain mean over the trials of ||rff_attention - exact||_F / ||exact||_F, not the root of the mean of their squares."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    norms = _trial_norms(D, num_features, n_tokens, input_scale, n_trials, seed)
    return (sum((difference / exact) ** 2 for difference, exact in norms) / len(norms)) ** 0.5
