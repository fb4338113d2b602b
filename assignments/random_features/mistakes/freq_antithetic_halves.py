# Antithetic sampling, a variance-reduction trick for Monte Carlo means: draw half the frequencies and append their
# negations. Each row on its own is N(0, I/sigma2) and the moments are right, but the second half is fixed by the
# first: the rows are not independent (and since cos is even, the negated rows add no new estimate of the kernel).
HINT = "The rows must be independent draws: yours reuse half of them (the second half repeats the first, or its negation, as in antithetic sampling), so half the features carry no new information."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    half = torch.randn((num_features + 1) // 2, D, generator=generator, dtype=dtype) / math.sqrt(_sigma2(D))
    return torch.cat([half, -half])[:num_features]
