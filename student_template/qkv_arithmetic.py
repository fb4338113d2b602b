# Student stub generated from the reference by `make templates`. Replace each TODO with your code.
"""Problem 1: query/key/value projections, attention scores, softmax and argmax attention.

Tokens are rows: ``H`` has shape (..., T, d_in) and a weight ``W`` has shape (d_out, d_in),
so the column-vector rule ``q_i = W_q h_i`` reads ``Q = H @ W_q.T`` for all tokens at once.
"""

from __future__ import annotations

import torch


def qkv(H: torch.Tensor, W_q: torch.Tensor, W_k: torch.Tensor, W_v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Return (Q, K, V), each (..., T, d_out), with q_i = W_q h_i, k_i = W_k h_i, v_i = W_v h_i."""
    raise NotImplementedError("TODO: implement qkv()")


def attention_scores(Q: torch.Tensor, K: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
    """Return the (..., T_q, T_k) matrix whose entry (i, j) is scale * q_i . k_j."""
    raise NotImplementedError("TODO: implement attention_scores()")


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax along ``dim``, numerically stable: finite inputs as large as 1e4 give finite outputs."""
    raise NotImplementedError("TODO: implement softmax()")


def attention_weights(Q: torch.Tensor, K: torch.Tensor, scale: float = 1.0, causal: bool = False) -> torch.Tensor:
    """Softmax of the scores over the keys, (..., T_q, T_k).

    With ``causal=True`` (requires T_q == T_k), query i gives zero weight to every key j > i.
    """
    raise NotImplementedError("TODO: implement attention_weights()")


def softmax_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, scale: float = 1.0, causal: bool = False) -> torch.Tensor:
    """Each query's output is the attention-weighted average of the values, (..., T_q, d_v)."""
    raise NotImplementedError("TODO: implement softmax_attention()")


def argmax_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    """Each query takes the value of its highest-scoring key (unscaled); ties go to the lowest key index."""
    raise NotImplementedError("TODO: implement argmax_attention()")
