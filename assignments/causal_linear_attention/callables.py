"""Feature maps the tests pass to the student by name (``Named("elu_plus_one")``): each is built where the call runs."""

import torch


def elu_plus_one(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.elu(x) + 1


def relu_plus_small(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x) + 1e-3


def softplus(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.softplus(x)


def exp(x: torch.Tensor) -> torch.Tensor:
    return torch.exp(x)


def square_plus_one(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x * x, torch.ones_like(x[..., :1])], dim=-1)


def relu(x: torch.Tensor) -> torch.Tensor:
    # zero for all-negative inputs, so linear-attention denominators can be exactly 0
    return torch.relu(x)
