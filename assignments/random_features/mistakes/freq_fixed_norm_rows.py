# Random directions, each scaled to the typical length sqrt(D / sigma2) (Performer's scaling=1
# option, without the orthogonalisation). Mean, variance and covariance are right; the law is not
# Gaussian, because a Gaussian vector's length varies.
HINT = "The frequencies should be Gaussian, w ~ N(0, I/sigma2): rescaling every row to the same length changes the law (the lengths of Gaussian vectors vary)."


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    z = torch.randn(num_features, D, generator=generator, dtype=torch.float64)
    rows = z / z.norm(dim=1, keepdim=True) * math.sqrt(D / _sigma2(D))
    return rows.to(dtype)
