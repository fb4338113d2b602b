HINT = "Your frequencies have variance 1: for the kernel exp(-|q-k|^2/(2 sigma2)) they must be scaled to variance 1/sigma2."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    return torch.randn(num_features, D, generator=generator, dtype=dtype)
