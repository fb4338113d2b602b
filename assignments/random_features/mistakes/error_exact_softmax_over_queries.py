# The exact attention normalised over the queries (each column of weights sums to 1) instead of over the keys.
HINT = "The exact attention is the softmax over the keys: each row of weights sums to 1 (softmax(..., dim=-1)), as in rff_attention."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    errors = []
    for _ in range(n_trials):
        Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
        W = sample_frequencies(D, num_features, generator=generator)
        exact = torch.softmax(Q @ K.T / math.sqrt(D), dim=0) @ V
        approx = rff_attention(Q, K, V, W)
        errors.append(torch.linalg.norm(approx - exact) / torch.linalg.norm(exact))
    return float(torch.stack(errors).mean())
