HINT = "The feature map is scaled by sqrt(1/(2 num_features)); with sines and cosines the right factor is sqrt(1/num_features)."


def random_feature_map(X, W):
    projections = X @ W.mT
    return torch.cat([torch.sin(projections), torch.cos(projections)], dim=-1) / math.sqrt(2 * W.shape[0])
