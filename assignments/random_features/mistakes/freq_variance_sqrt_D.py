HINT = "Your frequencies are far too spread out (variance sqrt(D)): the spectral density of exp(-|q-k|^2/(2 sigma2)) has variance 1/sigma2, not sigma2."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    return math.sqrt(_sigma2(D)) * torch.randn(num_features, D, generator=generator, dtype=dtype)
