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
    # BEGIN SOLUTION
    return torch.nn.functional.elu(X) + 1
    # END SOLUTION


def causal_kernel_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, feature_map: FeatureMap = elu_feature_map) -> torch.Tensor:
    """The quadratic form: weights phi(q_i) . phi(k_j) for j <= i, zero for j > i, normalised per row."""
    # BEGIN SOLUTION
    sim = feature_map(Q) @ feature_map(K).mT  # (..., N, N)
    N = sim.shape[-1]
    future = torch.ones(N, N, dtype=torch.bool, device=sim.device).triu(diagonal=1)
    sim = sim.masked_fill(future, 0.0)
    return (sim @ V) / sim.sum(dim=-1, keepdim=True)
    # END SOLUTION


def causal_linear_attention(
    Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, feature_map: FeatureMap = elu_feature_map, eps: float = 1e-6
) -> torch.Tensor:
    """phi(q_i)^T S_i / (phi(q_i)^T Z_i + eps) with prefix sums S_i, Z_i; time and memory linear in N."""
    # BEGIN SOLUTION
    # Chunks of B tokens: inside a chunk, the masked B x B form; the keys of earlier chunks
    # are summarised by the carried state S (F x M) and Z (F). Memory is O(N (F + M) + B^2 + F M),
    # where the plain cumulative sum would hold N x F x M numbers.
    B = 64
    phi_q, phi_k = feature_map(Q), feature_map(K)
    N, F, M = phi_q.shape[-2], phi_q.shape[-1], V.shape[-1]
    # Broadcast the leading dimensions on empty views: torch.broadcast_shapes would import sympy (~0.7 s) on first use.
    batch = torch.broadcast_tensors(phi_q[..., :0, :0], phi_k[..., :0, :0], V[..., :0, :0])[0].shape[:-2]
    dtype = torch.promote_types(phi_q.dtype, V.dtype)
    S = torch.zeros(*batch, F, M, dtype=dtype, device=V.device)
    Z = torch.zeros(*batch, F, 1, dtype=dtype, device=V.device)
    out = torch.empty(*batch, N, M, dtype=dtype, device=V.device)
    future = torch.ones(B, B, dtype=torch.bool, device=V.device).triu(diagonal=1)
    for start in range(0, N, B):
        end = min(start + B, N)
        q, k, v = phi_q[..., start:end, :], phi_k[..., start:end, :], V[..., start:end, :]
        local = (q @ k.mT).masked_fill(future[: end - start, : end - start], 0.0)  # within the chunk, j <= i
        numerator = q @ S + local @ v
        denominator = q @ Z + local.sum(dim=-1, keepdim=True)
        out[..., start:end, :] = numerator / (denominator + eps)
        S = S + k.mT @ v
        Z = Z + k.sum(dim=-2).unsqueeze(-1)
    return out
    # END SOLUTION


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
    # BEGIN SOLUTION
    phi_q, phi_k = feature_map(q), feature_map(k)
    S = phi_k.unsqueeze(-1) * v.unsqueeze(-2)  # the outer product phi(k) v^T, (..., C, M)
    Z = phi_k
    if state is not None:
        S, Z = state[0] + S, state[1] + Z
    numerator = (phi_q.unsqueeze(-2) @ S).squeeze(-2)
    denominator = (phi_q * Z).sum(dim=-1, keepdim=True)
    return numerator / (denominator + eps), (S, Z)
    # END SOLUTION
