# torch.linalg.norm(A, 2) of a matrix is its largest singular value, not the Frobenius norm of the whole output.
HINT = "Use the Frobenius norm of the whole (n_tokens, D) output (torch.linalg.norm(A) with no ord): ord=2 of a matrix is its largest singular value."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    errors = []
    for _ in range(n_trials):
        Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
        W = sample_frequencies(D, num_features, generator=generator)
        similarity = softmax_kernel(Q, K)
        exact = (similarity / similarity.sum(dim=-1, keepdim=True)) @ V
        approx = rff_attention(Q, K, V, W)
        errors.append(torch.linalg.norm(approx - exact, 2) / torch.linalg.norm(exact, 2))
    return float(torch.stack(errors).mean())
