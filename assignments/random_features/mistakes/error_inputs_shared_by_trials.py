# Q, K and V drawn once before the loop; only the frequencies are redrawn in each trial.
HINT = "approximation_error should draw new Q, K and V in every trial (as well as new frequencies); yours reuses one set of inputs."


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
    similarity = softmax_kernel(Q, K)
    exact = (similarity / similarity.sum(dim=-1, keepdim=True)) @ V
    errors = []
    for _ in range(n_trials):
        W = sample_frequencies(D, num_features, generator=generator)
        errors.append(torch.linalg.norm(rff_attention(Q, K, V, W) - exact) / torch.linalg.norm(exact))
    return float(torch.stack(errors).mean())
