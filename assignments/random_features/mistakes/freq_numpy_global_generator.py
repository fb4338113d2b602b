# Without a generator, numpy's global generator: each call differs and the law holds, but torch.manual_seed decides nothing.
HINT = "With generator=None, sample_frequencies draws from torch's global random state (torch.randn(..., generator=None)), so torch.manual_seed decides the draw; numpy's or Python's global generator ignores it."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    if generator is None:
        import numpy

        return torch.from_numpy(numpy.random.standard_normal((num_features, D))).to(dtype) / math.sqrt(math.sqrt(D))
    return torch.randn(num_features, D, generator=generator, dtype=dtype) / math.sqrt(math.sqrt(D))
