"""Count the multiply-accumulates of the matrix products a computation performs, on numpy.

The inputs must be ``inputs.TensorArray``s (what ``rand``/``randn`` give): their products are
counted while ``measured_macs`` runs. It agrees with torch's ``FlopCounterMode`` (halved) on the
products the tests write with ``@`` (``tests/testkit/test_macs.py`` checks that), without importing torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .inputs import MAC_COUNTER, UnpricedOperation

__all__ = ["UnpricedOperation", "measured_macs"]


def measured_macs(compute: Callable[[], Any]) -> int:
    """Multiply-accumulates of the matrix products ``compute()`` performs on ``TensorArray``s."""
    counter = [0]
    token = MAC_COUNTER.set(counter)
    try:
        compute()
    finally:
        MAC_COUNTER.reset(token)
    return counter[0]
