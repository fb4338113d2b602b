# The layout of a sinusoidal position encoding, (sin, cos) pairs interleaved, instead of all sines
# then all cosines. phi(q) . phi(k) is the same, so only the feature map itself shows it.
HINT = "random_feature_map lists all sines first, then all cosines: [sin(X W^T), cos(X W^T)], not interleaved (sin, cos) pairs."


def random_feature_map(X, W):
    projections = X @ W.mT
    pairs = torch.stack([torch.sin(projections), torch.cos(projections)], dim=-1)
    return pairs.flatten(-2) / math.sqrt(W.shape[0])
