HINT = "The query-side factor exp(|q|^2/(2 sigma2)) is missing from the kernel estimate."


def approx_softmax_kernel(Q, K, W):
    return random_feature_map(Q, W) @ _weighted_features(K, W).mT
