# A fair alternative: frequencies drawn as (D, F) with torch.normal and transposed; approximation_error
# draws every trial's frequencies first, then the inputs in the order V, K, Q, and uses torch.softmax.


def sample_frequencies(D, num_features, generator=None, dtype=torch.float64):
    std = float(D) ** -0.25
    return torch.normal(0.0, std, size=(D, num_features), generator=generator, dtype=dtype).T


def approximation_error(D, num_features, n_tokens=64, input_scale=0.3, n_trials=8, seed=0):
    gen = torch.Generator()
    gen.manual_seed(seed)
    Ws = [sample_frequencies(D, num_features, gen) for _ in range(n_trials)]
    total = 0.0
    for W in Ws:
        V = torch.randn(n_tokens, D, generator=gen, dtype=torch.float64) * input_scale
        K = torch.randn(n_tokens, D, generator=gen, dtype=torch.float64) * input_scale
        Q = torch.randn(n_tokens, D, generator=gen, dtype=torch.float64) * input_scale
        exact = torch.softmax(Q @ K.T / D**0.5, dim=-1) @ V
        total += ((rff_attention(Q, K, V, W) - exact).pow(2).sum().sqrt() / exact.pow(2).sum().sqrt()).item()
    return total / n_trials
