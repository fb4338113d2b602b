"""Functions that tests may pass as arguments (e.g. a feature map), named so they can cross.

Both sides build the same function from its name: the worker for the student's call, the
grader for the reference's call.
"""

from __future__ import annotations

from collections.abc import Callable

import torch


def _elu_plus_one(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.elu(x) + 1


def _relu_plus_small(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x) + 1e-3


def _softplus(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.softplus(x)


def _exp(x: torch.Tensor) -> torch.Tensor:
    return torch.exp(x)


def _square_plus_one(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x * x, torch.ones_like(x[..., :1])], dim=-1)


def _relu(x: torch.Tensor) -> torch.Tensor:
    # zero for all-negative inputs, so linear-attention denominators can be exactly 0
    return torch.relu(x)


NAMED: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "elu_plus_one": _elu_plus_one,
    "relu_plus_small": _relu_plus_small,
    "softplus": _softplus,
    "exp": _exp,
    "square_plus_one": _square_plus_one,
    "relu": _relu,
    # torch dtypes cannot cross the wire as data; a test passes Named("torch.float32") for dtype=.
    "torch.float32": torch.float32,
    "torch.float64": torch.float64,
}


def build(name: str) -> Callable[[torch.Tensor], torch.Tensor]:
    """The function registered under ``name``."""
    try:
        return NAMED[name]
    except KeyError:
        raise ValueError(f"unknown named function {name!r}") from None
