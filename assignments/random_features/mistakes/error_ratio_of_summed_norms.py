# The summed error norms over the summed exact norms: a ratio of means, not the mean of the per-trial ratios (trials
# whose exact attention is small weigh less).
HINT = "Divide in each trial, then average: the mean over the trials of ||rff_attention - exact||_F / ||exact||_F, not (sum of error norms) / (sum of exact norms)."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    norms = _trial_norms(D, num_features, n_tokens, input_scale, n_trials, seed)
    return sum(difference for difference, _ in norms) / sum(exact for _, exact in norms)
