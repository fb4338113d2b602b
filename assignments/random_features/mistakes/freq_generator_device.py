# Reads generator.device to place the sample, which fails when no generator is given.
HINT = "generator=None must work too (then draw from torch's global random state); yours uses the generator's attributes unconditionally."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    std = 1.0 / math.sqrt(_sigma2(D))
    return std * torch.randn(num_features, D, generator=generator, dtype=dtype, device=generator.device)
