# The (D, num_features) projection matrix of scikit-learn's RBFSampler (X @ W), not the handout's
# (num_features, D), one frequency per row.
HINT = "sample_frequencies returns one frequency per row: shape (num_features, D), not (D, num_features)."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    return torch.randn(D, num_features, generator=generator, dtype=dtype) / math.sqrt(_sigma2(D))
