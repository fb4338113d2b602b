# The key sum written as a product with a ones column created in float64.
HINT = "rff_attention fails for float32 inputs: create helper tensors with the inputs' dtype (or use .sum) so every product has matching dtypes."


def rff_attention(Q, K, V, W):
    phi_q, phi_k = _weighted_features(Q, W), _weighted_features(K, W)
    ones = torch.ones(phi_k.shape[-2], 1, dtype=torch.float64)
    return (phi_q @ (phi_k.mT @ V)) / (phi_q @ (phi_k.mT @ ones))
