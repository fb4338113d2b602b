# One scalar frequency per feature, repeated in every coordinate (as in a sinusoidal position
# encoding): each coordinate has the right law, but they are all equal.
HINT = "Each frequency is a D-dimensional vector with independent coordinates; yours repeats one number in every coordinate."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    omega = torch.randn(num_features, 1, generator=generator, dtype=dtype) / math.sqrt(_sigma2(D))
    return omega.expand(num_features, D).clone()
