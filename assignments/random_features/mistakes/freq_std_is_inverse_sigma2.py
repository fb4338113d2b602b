# The standard deviation set to 1/sigma2 = 1/sqrt(D), confusing it with the variance 1/sigma2.
HINT = "N(0, I/sigma2) has variance 1/sigma2, so its standard deviation is 1/sqrt(sigma2) = D ** -0.25, not 1/sigma2."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    return torch.normal(0.0, 1.0 / _sigma2(D), size=(num_features, D), generator=generator, dtype=dtype)
