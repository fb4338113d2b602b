# The running state allocated in float64 whatever the inputs: float32 inputs then fail in the products.
HINT = "causal_linear_attention fails for float32 inputs: allocate the running sums with the inputs' dtype."


def causal_linear_attention(Q, K, V, feature_map=elu_feature_map, eps=1e-6):
    phi_q, phi_k = feature_map(Q), feature_map(K)
    S = torch.zeros(*phi_k.shape[:-2], phi_k.shape[-1], V.shape[-1], dtype=torch.float64)
    Z = torch.zeros(*phi_k.shape[:-2], phi_k.shape[-1], 1, dtype=torch.float64)
    rows = []
    for start in range(0, phi_q.shape[-2], 64):
        q, k, v = phi_q[..., start:start + 64, :], phi_k[..., start:start + 64, :], V[..., start:start + 64, :]
        local = (q @ k.mT).tril()
        rows.append((q @ S + local @ v) / (q @ Z + local.sum(dim=-1, keepdim=True) + eps))
        S = S + k.mT @ v
        Z = Z + k.sum(dim=-2).unsqueeze(-1)
    return torch.cat(rows, dim=-2)
