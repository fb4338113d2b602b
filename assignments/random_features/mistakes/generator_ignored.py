HINT = "The frequencies ignore `generator` (they come from the global random state): pass generator=generator to the sampling call."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    return torch.randn(num_features, D, dtype=dtype) / math.sqrt(_sigma2(D))
