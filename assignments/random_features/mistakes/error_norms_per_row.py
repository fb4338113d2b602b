# ||rff_i - exact_i|| / ||exact_i|| for each row (token), averaged over the rows: norms per row, not over the whole output.
HINT = "Take the norms over the whole (n_tokens, D) output, ||rff_attention - exact||_F / ||exact||_F, not a ratio per row averaged over the rows."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    errors = []
    for _ in range(n_trials):
        Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
        W = sample_frequencies(D, num_features, generator=generator)
        similarity = softmax_kernel(Q, K)
        exact = (similarity / similarity.sum(dim=-1, keepdim=True)) @ V
        per_row = (rff_attention(Q, K, V, W) - exact).norm(dim=-1) / exact.norm(dim=-1)
        errors.append(float(per_row.mean()))
    return sum(errors) / len(errors)
