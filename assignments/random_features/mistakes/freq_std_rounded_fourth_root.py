# The standard deviation 1/D ** 0.25 with the fourth root rounded to an integer: right at D = 16 (and 1, 81), not at 8.
HINT = "The frequencies' standard deviation is D ** -0.25 exactly; a rounded fourth root is right only at D = 1, 16, 81, ..."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    return torch.randn(num_features, D, generator=generator, dtype=dtype) / round(D ** 0.25)
