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
    # BEGIN SOLUTION
    # Integer ** keeps the answer exact however large it gets (floats would round it).
    size = (int(n_heads) + 1) ** int(n_layers)
    return size if seq_len is None else min(size, int(seq_len))
    # END SOLUTION


def receptive_field(attended: Sequence[Any], position: int) -> set[int]:
    """The input positions the top output at ``position`` depends on.

    ``attended[l][t][h]`` is the key that head h of query t selects at layer l (bottom layer first).
    """
    # BEGIN SOLUTION
    reached = {int(position)}
    # Trace back from the output: the top layer decides which positions of the layer below matter.
    for layer in reversed(list(attended)):
        keys = [[int(j) for j in row] for row in layer]
        reached = reached | {j for t in reached for j in keys[t]}
    return reached
    # END SOLUTION
