# Frequencies taken as magnitudes (all positive, like the frequencies of a sinusoidal position
# encoding): the variance is right but the mean is not 0.
HINT = "The frequencies should have mean 0 (w ~ N(0, I/sigma2)); yours are all positive."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    return torch.randn(num_features, D, generator=generator, dtype=dtype).abs() / math.sqrt(_sigma2(D))
