# for t in range(1, n_trials): one trial too few; with n_trials=1 there is no trial to average.
HINT = "Average over exactly n_trials trials (range(n_trials)): with n_trials=1 yours averages no trial at all."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    errors = []
    for _ in range(1, n_trials):
        Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
        W = sample_frequencies(D, num_features, generator=generator)
        similarity = softmax_kernel(Q, K)
        exact = (similarity / similarity.sum(dim=-1, keepdim=True)) @ V
        errors.append(float(torch.linalg.norm(rff_attention(Q, K, V, W) - exact) / torch.linalg.norm(exact)))
    return sum(errors) / len(errors) if errors else float("nan")  # np.mean([]) is nan too
