# Student stub generated from the reference by `make templates`. Replace each TODO with your code.
"""Problem 2: receptive fields of argmax attention with residual connections.

With argmax attention every head of a query reads exactly one key, and the residual
connection also passes the query's own position up, so one layer connects a position to
at most ``n_heads + 1`` positions of the layer below.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def receptive_field_size(n_layers: int, n_heads: int, seq_len: int | None = None) -> int:
    """The most input positions one output can depend on: (n_heads + 1) ** n_layers, capped at seq_len if given."""
    raise NotImplementedError("TODO: implement receptive_field_size()")


def receptive_field(attended: Sequence[Any], position: int) -> set[int]:
    """The input positions the top output at ``position`` depends on.

    ``attended[l][t][h]`` is the key that head h of query t selects at layer l (bottom layer first).
    """
    raise NotImplementedError("TODO: implement receptive_field()")
