# A relative mean squared error: ||rff - exact||^2 / ||exact||^2, without the square root.
HINT = "The error is ||rff - exact||_F / ||exact||_F, a ratio of Frobenius norms (square roots of the sums of squares)."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    errors = []
    for _ in range(n_trials):
        Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
        W = sample_frequencies(D, num_features, generator=generator)
        similarity = softmax_kernel(Q, K)
        exact = (similarity / similarity.sum(dim=-1, keepdim=True)) @ V
        errors.append(((rff_attention(Q, K, V, W) - exact) ** 2).sum() / (exact**2).sum())
    return float(torch.stack(errors).mean())
