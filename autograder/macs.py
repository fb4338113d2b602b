"""Count the multiply-accumulates of the matrix products a computation performs.

It agrees with torch's ``FlopCounterMode`` (halved) on the products the tests write with ``@``
(``tests/test_macs.py`` checks that), but first use costs milliseconds where ``FlopCounterMode``
first imports sympy, about 1.3 s of every grading run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from torch.overrides import TorchFunctionMode

# Every element of a product's output costs one MAC per term of the shared dimension.
PRICED = frozenset({"matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "mv", "dot"})
# Products this counter does not price: a test that uses one fails loudly instead of counting 0.
UNPRICED = frozenset({"einsum", "addmm", "addbmm", "baddbmm", "addmv", "addr", "linear", "bilinear", "tensordot", "chain_matmul",
                      "multi_dot", "inner", "outer", "vdot", "kron", "conv1d", "conv2d", "conv3d", "scaled_dot_product_attention"})


class UnpricedOperation(RuntimeError):
    """A matrix product this counter has no rule for."""


class MacCounter(TorchFunctionMode):
    """While active, adds up the MACs of every matrix product in ``macs``."""

    def __init__(self) -> None:
        super().__init__()
        self.macs = 0

    def __torch_function__(self, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        name = getattr(func, "__name__", "")
        if name in UNPRICED:
            raise UnpricedOperation(f"the MAC counter has no rule for {name}; write the product with @")
        result = func(*args, **(kwargs or {}))
        if name in PRICED:
            left = args[1] if name == "__rmatmul__" else args[0]
            self.macs += math.prod(result.shape) * left.shape[-1]
        return result


def measured_macs(compute: Callable[[], Any]) -> int:
    """Multiply-accumulates of the matrix products ``compute()`` performs."""
    with MacCounter() as counter:
        compute()
    return counter.macs
