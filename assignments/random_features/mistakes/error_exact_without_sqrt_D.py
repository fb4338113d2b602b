# The "exact" attention with scores Q K^T instead of Q K^T / sqrt(D).
HINT = "The exact attention that rff_attention is compared with uses the scores Q K^T / sqrt(D), as softmax_kernel does."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    errors = []
    for _ in range(n_trials):
        Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
        W = sample_frequencies(D, num_features, generator=generator)
        exact = torch.softmax(Q @ K.T, dim=-1) @ V
        errors.append(torch.linalg.norm(rff_attention(Q, K, V, W) - exact) / torch.linalg.norm(exact))
    return float(torch.stack(errors).mean())
