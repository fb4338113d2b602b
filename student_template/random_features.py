# Student stub generated from the reference by `make templates`. Replace each TODO with your code.
"""Problem 5: random Fourier features that approximate softmax attention in linear time.

With ``sigma2 = sqrt(D)`` the softmax similarity splits into a Gaussian kernel between two norm
factors, ``exp(q.k / sigma2) = exp(|q|^2/(2 sigma2)) exp(-|q-k|^2/(2 sigma2)) exp(|k|^2/(2 sigma2))``,
and the Gaussian kernel is the expectation of ``phi(q) . phi(k)`` over frequencies ``w ~ N(0, I/sigma2)``.
"""

from __future__ import annotations

import math

import torch


def _sigma2(D: int) -> float:
    """The kernel width that turns the Gaussian factorisation into exp(q.k / sqrt(D))."""
    return math.sqrt(D)


def sample_frequencies(D: int, num_features: int, generator: torch.Generator | None = None, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Draw ``num_features`` i.i.d. rows w ~ N(0, I / sigma2), shape (num_features, D), from ``generator``."""
    raise NotImplementedError("TODO: implement sample_frequencies()")


def random_feature_map(X: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """``sqrt(1/num_features) * [sin(X W^T), cos(X W^T)]``: all sines, then all cosines, (..., N, 2*num_features)."""
    raise NotImplementedError("TODO: implement random_feature_map()")


def softmax_kernel(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """The exact similarity ``exp(Q K^T / sqrt(D))``, (..., N_q, N_k)."""
    raise NotImplementedError("TODO: implement softmax_kernel()")


def _weighted_features(X: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """Optional helper: ``exp(|x|^2/(2 sigma2)) phi(x)`` for every row x of X (the norm factor folded into the features)."""
    raise NotImplementedError("TODO: implement _weighted_features()")


def approx_softmax_kernel(Q: torch.Tensor, K: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """``exp(|q|^2/(2 sigma2)) phi(q).phi(k) exp(|k|^2/(2 sigma2))`` for all pairs, (..., N_q, N_k)."""
    raise NotImplementedError("TODO: implement approx_softmax_kernel()")


def rff_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """Softmax attention with the similarity replaced by ``approx_softmax_kernel``, in time and memory linear in N."""
    raise NotImplementedError("TODO: implement rff_attention()")


def approximation_error(D: int, num_features: int, n_tokens: int = 64, input_scale: float = 0.3, n_trials: int = 8, seed: int = 0) -> float:
    """Mean over ``n_trials`` of ||rff_attention - softmax attention||_F / ||softmax attention||_F on random inputs."""
    raise NotImplementedError("TODO: implement approximation_error()")
