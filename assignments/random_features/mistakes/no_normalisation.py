HINT = "The feature map is missing its factor sqrt(1/num_features), so phi(q).phi(k) grows with the number of features."


def random_feature_map(X, W):
    projections = X @ W.mT
    return torch.cat([torch.sin(projections), torch.cos(projections)], dim=-1)
