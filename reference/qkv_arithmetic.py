"""Problem 1: query/key/value projections, attention scores, softmax and argmax attention.

Tokens are rows: ``H`` has shape (..., T, d_in) and a weight ``W`` has shape (d_out, d_in),
so the column-vector rule ``q_i = W_q h_i`` reads ``Q = H @ W_q.T`` for all tokens at once.
"""

from __future__ import annotations

import torch


def qkv(H: torch.Tensor, W_q: torch.Tensor, W_k: torch.Tensor, W_v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Return (Q, K, V), each (..., T, d_out), with q_i = W_q h_i, k_i = W_k h_i, v_i = W_v h_i."""
    # BEGIN SOLUTION
    return H @ W_q.mT, H @ W_k.mT, H @ W_v.mT
    # END SOLUTION


def attention_scores(Q: torch.Tensor, K: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
    """Return the (..., T_q, T_k) matrix whose entry (i, j) is scale * q_i . k_j."""
    # BEGIN SOLUTION
    return scale * (Q @ K.mT)
    # END SOLUTION


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax along ``dim``, numerically stable: finite inputs as large as 1e4 give finite outputs."""
    # BEGIN SOLUTION
    # Subtracting the maximum leaves the result unchanged and keeps exp() from overflowing.
    shifted = x - x.amax(dim=dim, keepdim=True)
    weights = torch.exp(shifted)
    return weights / weights.sum(dim=dim, keepdim=True)
    # END SOLUTION


def attention_weights(Q: torch.Tensor, K: torch.Tensor, scale: float = 1.0, causal: bool = False) -> torch.Tensor:
    """Softmax of the scores over the keys, (..., T_q, T_k).

    With ``causal=True`` (requires T_q == T_k), query i gives zero weight to every key j > i.
    """
    # BEGIN SOLUTION
    scores = attention_scores(Q, K, scale)
    if causal:
        T_q, T_k = scores.shape[-2], scores.shape[-1]
        if T_q != T_k:
            raise ValueError(f"causal attention needs as many queries as keys, got {T_q} and {T_k}")
        future = torch.ones(T_q, T_k, dtype=torch.bool, device=scores.device).triu(diagonal=1)
        scores = scores.masked_fill(future, float("-inf"))
    return softmax(scores, dim=-1)
    # END SOLUTION


def softmax_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, scale: float = 1.0, causal: bool = False) -> torch.Tensor:
    """Each query's output is the attention-weighted average of the values, (..., T_q, d_v)."""
    # BEGIN SOLUTION
    return attention_weights(Q, K, scale, causal) @ V
    # END SOLUTION


def argmax_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    """Each query takes the value of its highest-scoring key (unscaled); ties go to the lowest key index."""
    # BEGIN SOLUTION
    # torch.argmax returns the first maximal index, which is the tie rule we want.
    best = attention_scores(Q, K).argmax(dim=-1, keepdim=True)
    return torch.take_along_dim(V, best, dim=-2)
    # END SOLUTION
