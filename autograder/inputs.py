"""Seeded random inputs for tests: the same tensors on every machine and in every run."""

from __future__ import annotations

import torch


def randn(*shape: int, seed: int, scale: float = 1.0, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """``scale`` times standard normal entries drawn from a generator seeded with ``seed``."""
    return scale * torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def rand(*shape: int, seed: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Uniform entries in [0, 1) drawn from a generator seeded with ``seed``."""
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype)
