# ruff: noqa: F821
# (appended to the reference before it runs, so the reference's functions are in scope)
"""Helpers shared by random_features mistakes: approximation_error's trials, drawn and measured as the definition says."""

import torch


def _trial_norms(D, num_features, n_tokens, input_scale, n_trials, seed):
    """(||rff_attention - exact||_F, ||exact||_F) of each trial, for the mistakes that aggregate the trials otherwise."""
    generator = torch.Generator().manual_seed(seed)
    norms = []
    for _ in range(n_trials):
        Q, K, V = (input_scale * torch.randn(n_tokens, D, generator=generator, dtype=torch.float64) for _ in range(3))
        W = sample_frequencies(D, num_features, generator=generator)
        similarity = softmax_kernel(Q, K)
        exact = (similarity / similarity.sum(dim=-1, keepdim=True)) @ V
        norms.append((float(torch.linalg.norm(rff_attention(Q, K, V, W) - exact)), float(torch.linalg.norm(exact))))
    return norms
