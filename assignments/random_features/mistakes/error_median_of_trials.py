# The median of the per-trial errors in place of their mean: robust, but not the definition (smaller where the trial
# errors have a long right tail).
HINT = "approximation_error is the mean over the trials of ||rff_attention - exact||_F / ||exact||_F, not their median."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    ratios = [difference / exact for difference, exact in _trial_norms(D, num_features, n_tokens, input_scale, n_trials, seed)]
    return float(torch.tensor(ratios).median())
