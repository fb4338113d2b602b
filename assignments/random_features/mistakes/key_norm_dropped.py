HINT = "The key-side factor exp(|k|^2/(2 sigma2)) is missing: without it the features estimate a Gaussian kernel, not exp(q.k/sqrt(D))."


def approx_softmax_kernel(Q, K, W):
    return _weighted_features(Q, W) @ random_feature_map(K, W).mT


def rff_attention(Q, K, V, W):
    phi_q, phi_k = _weighted_features(Q, W), random_feature_map(K, W)
    return (phi_q @ (phi_k.mT @ V)) / (phi_q @ phi_k.sum(dim=-2, keepdim=True).mT)
