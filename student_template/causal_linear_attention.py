# Student stub generated from the reference by `make templates`. Replace each TODO with your code.
"""Problem 6: causal kernel attention, its linear-time form, and the one-token recurrent step.

With a feature map phi, query i averages the values of keys j <= i with weights
phi(q_i) . phi(k_j). Shapes: Q, K (..., N, C); V (..., N, M); output (..., N, M).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

FeatureMap = Callable[[torch.Tensor], torch.Tensor]


def elu_feature_map(X: torch.Tensor) -> torch.Tensor:
    """elu(X) + 1, elementwise: a positive feature map."""
    raise NotImplementedError("TODO: implement elu_feature_map()")


def causal_kernel_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, feature_map: FeatureMap = elu_feature_map) -> torch.Tensor:
    """The quadratic form: weights phi(q_i) . phi(k_j) for j <= i, zero for j > i, normalised per row."""
    raise NotImplementedError("TODO: implement causal_kernel_attention()")


def causal_linear_attention(
    Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, feature_map: FeatureMap = elu_feature_map, eps: float = 1e-6
) -> torch.Tensor:
    """phi(q_i)^T S_i / (phi(q_i)^T Z_i + eps) with prefix sums S_i, Z_i; time and memory linear in N."""
    raise NotImplementedError("TODO: implement causal_linear_attention()")


def recurrent_step(
    state: tuple[torch.Tensor, torch.Tensor] | None,
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    feature_map: FeatureMap = elu_feature_map,
    eps: float = 1e-6,
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """One token: add phi(k) v^T to S and phi(k) to Z, then return (output (..., M), (S (..., C, M), Z (..., C))).

    ``state`` is None before the first token.
    """
    raise NotImplementedError("TODO: implement recurrent_step()")
