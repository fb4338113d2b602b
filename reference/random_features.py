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
    # BEGIN SOLUTION
    # N(0, I/sigma2) is the Fourier transform (spectral density) of exp(-|q-k|^2 / (2 sigma2)).
    std = 1.0 / math.sqrt(_sigma2(D))
    return std * torch.randn(num_features, D, generator=generator, dtype=dtype)
    # END SOLUTION


def random_feature_map(X: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """``sqrt(1/num_features) * [sin(X W^T), cos(X W^T)]``: all sines, then all cosines, (..., N, 2*num_features)."""
    # BEGIN SOLUTION
    projections = X @ W.mT
    return torch.cat([torch.sin(projections), torch.cos(projections)], dim=-1) / math.sqrt(W.shape[0])
    # END SOLUTION


def softmax_kernel(Q: torch.Tensor, K: torch.Tensor) -> torch.Tensor:
    """The exact similarity ``exp(Q K^T / sqrt(D))``, (..., N_q, N_k)."""
    # BEGIN SOLUTION
    return torch.exp(Q @ K.mT / math.sqrt(Q.shape[-1]))
    # END SOLUTION


def _weighted_features(X: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """Optional helper: ``exp(|x|^2/(2 sigma2)) phi(x)`` for every row x of X (the norm factor folded into the features)."""
    # BEGIN SOLUTION
    norm_factor = torch.exp((X * X).sum(dim=-1, keepdim=True) / (2 * _sigma2(X.shape[-1])))
    return norm_factor * random_feature_map(X, W)
    # END SOLUTION


def approx_softmax_kernel(Q: torch.Tensor, K: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """``exp(|q|^2/(2 sigma2)) phi(q).phi(k) exp(|k|^2/(2 sigma2))`` for all pairs, (..., N_q, N_k)."""
    # BEGIN SOLUTION
    return _weighted_features(Q, W) @ _weighted_features(K, W).mT
    # END SOLUTION


def rff_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """Softmax attention with the similarity replaced by ``approx_softmax_kernel``, in time and memory linear in N."""
    # BEGIN SOLUTION
    phi_q = _weighted_features(Q, W)  # (..., N_q, 2F)
    phi_k = _weighted_features(K, W)  # (..., N_k, 2F)
    # Summing over the keys first (associativity) avoids the N_q x N_k similarity matrix.
    keys_values = phi_k.mT @ V  # (..., 2F, M)
    keys_total = phi_k.sum(dim=-2, keepdim=True).mT  # (..., 2F, 1)
    return (phi_q @ keys_values) / (phi_q @ keys_total)
    # END SOLUTION


def approximation_error(D: int, num_features: int, n_tokens: int = 64, input_scale: float = 0.3, n_trials: int = 8, seed: int = 0) -> float:
    """Mean over ``n_trials`` of ||rff_attention - softmax attention||_F / ||softmax attention||_F on random inputs."""
    # BEGIN SOLUTION
    generator = torch.Generator().manual_seed(seed)
    errors = []
    for _ in range(n_trials):
        Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
        W = sample_frequencies(D, num_features, generator=generator)
        similarity = softmax_kernel(Q, K)
        exact = (similarity / similarity.sum(dim=-1, keepdim=True)) @ V
        approx = rff_attention(Q, K, V, W)
        errors.append(torch.linalg.norm(approx - exact) / torch.linalg.norm(exact))
    return float(torch.stack(errors).mean())
    # END SOLUTION
