HINT = "The features are in the wrong order: all sines first, then all cosines."


def random_feature_map(X, W):
    projections = X @ W.mT
    return torch.cat([torch.cos(projections), torch.sin(projections)], dim=-1) / math.sqrt(W.shape[0])
