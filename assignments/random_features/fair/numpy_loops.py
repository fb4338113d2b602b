# A fair alternative: numpy throughout with explicit loops over the features; ndarrays returned.
import numpy as np


def random_feature_map(X, W):
    X, W = np.asarray(X), np.asarray(W)
    F = W.shape[0]
    out = np.empty(X.shape[:-1] + (2 * F,), dtype=np.result_type(X, W))
    for f in range(F):
        angle = X @ W[f]
        out[..., f] = np.sin(angle)
        out[..., F + f] = np.cos(angle)
    return out * np.sqrt(1.0 / F)


def softmax_kernel(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    return np.exp(np.einsum("...id,...jd->...ij", Q, K) / np.sqrt(Q.shape[-1]))


def approx_softmax_kernel(Q, K, W):
    Q, K = np.asarray(Q), np.asarray(K)
    sigma2 = np.sqrt(Q.shape[-1])
    left = np.exp(np.sum(Q**2, axis=-1) / (2 * sigma2))[..., :, None]
    right = np.exp(np.sum(K**2, axis=-1) / (2 * sigma2))[..., None, :]
    return left * (random_feature_map(Q, W) @ np.swapaxes(random_feature_map(K, W), -1, -2)) * right


def rff_attention(Q, K, V, W):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    sigma2 = np.sqrt(Q.shape[-1])
    phi_q = random_feature_map(Q, W) * np.exp(np.sum(Q**2, axis=-1, keepdims=True) / (2 * sigma2))
    phi_k = random_feature_map(K, W) * np.exp(np.sum(K**2, axis=-1, keepdims=True) / (2 * sigma2))
    numerator = phi_q @ (np.swapaxes(phi_k, -1, -2) @ V)
    denominator = phi_q @ phi_k.sum(axis=-2)[..., :, None]
    return numerator / denominator


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    errors = []
    for _ in range(n_trials):
        Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=g, dtype=torch.float64).numpy() for _ in range(3))
        W = sample_frequencies(D, num_features, generator=g).numpy()
        scores = Q @ K.T / np.sqrt(D)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        exact = (weights / weights.sum(axis=-1, keepdims=True)) @ V
        errors.append(np.sqrt(np.sum((rff_attention(Q, K, V, W) - exact) ** 2) / np.sum(exact**2)))
    return float(np.mean(errors))
