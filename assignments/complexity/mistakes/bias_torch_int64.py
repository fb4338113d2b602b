import torch

HINT = "A torch integer tensor is int64, which wraps around silently beyond 2**63; compute the count with Python ints, exact at any size."


def relative_position_bias_params(max_len, n_heads, max_distance=None):
    reach = max_len - 1 if max_distance is None else min(max_distance, max_len - 1)
    return torch.tensor(2 * reach + 1) * n_heads
