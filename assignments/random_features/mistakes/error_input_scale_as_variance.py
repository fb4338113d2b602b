# input_scale used as the variance of the inputs (sqrt(input_scale) * randn) instead of their standard deviation.
HINT = "Q, K and V have entries N(0, input_scale^2): multiply standard normal draws by input_scale itself, not by its square root."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    errors = []
    for _ in range(n_trials):
        Q, K, V = (math.sqrt(input_scale) * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
        W = sample_frequencies(D, num_features, generator=generator)
        similarity = softmax_kernel(Q, K)
        exact = (similarity / similarity.sum(dim=-1, keepdim=True)) @ V
        errors.append(torch.linalg.norm(rff_attention(Q, K, V, W) - exact) / torch.linalg.norm(exact))
    return float(torch.stack(errors).mean())
