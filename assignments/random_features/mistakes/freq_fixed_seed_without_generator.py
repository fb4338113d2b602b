# Without a generator, a fixed seed: every call returns the same frequencies, whatever torch.manual_seed said.
HINT = "With generator=None, sample_frequencies draws from torch's global random state (torch.manual_seed decides it), not from a generator seeded with a constant."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    if generator is None:
        generator = torch.Generator().manual_seed(0)
    return torch.randn(num_features, D, generator=generator, dtype=dtype) / math.sqrt(math.sqrt(D))
