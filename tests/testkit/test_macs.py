"""The numpy MAC counter agrees with torch's FlopCounterMode on the products the complexity tests perform."""

import math

import numpy as np
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from autograder.testkit.inputs import rand as seeded_rand
from autograder.testkit.macs import UnpricedOperation, measured_macs


def rand(*shape):
    return seeded_rand(*shape, seed=math.prod(shape))


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# Each computation twice: on numpy (what the tests count) and on torch (what FlopCounterMode counts).
COMPUTATIONS = {
    "softmax attention": (lambda t: softmax(t(5, 3) @ t(7, 3).T / math.sqrt(3)) @ t(7, 4),
                          lambda t: torch.softmax(t(5, 3) @ t(7, 3).T / math.sqrt(3), dim=-1) @ t(7, 4)),
    "linear attention": (lambda t: (t(6, 9) @ (t(6, 9).T @ t(6, 2))) / (t(6, 9) @ t(6, 9).sum(axis=0)[:, None]),
                         lambda t: (t(6, 9) @ (t(6, 9).T @ t(6, 2))) / (t(6, 9) @ t(6, 9).sum(dim=0)[:, None])),
    "batched product": (lambda t: t(2, 3, 4, 5) @ t(2, 3, 5, 6), lambda t: t(2, 3, 4, 5) @ t(2, 3, 5, 6)),
    "broadcast product": (lambda t: t(3, 4, 5) @ t(5, 2), lambda t: t(3, 4, 5) @ t(5, 2)),
    "dot, mm and bmm": (lambda t: (np.dot(t(4, 3), t(3, 2)), np.matmul(t(2, 4, 3), t(2, 3, 5))),
                        lambda t: (torch.mm(t(4, 3), t(3, 2)), torch.bmm(t(2, 4, 3), t(2, 3, 5)))),
    "no product": (lambda t: softmax(t(4, 4)).sum(), lambda t: torch.softmax(t(4, 4), dim=-1).sum()),
}


@pytest.mark.parametrize("name", COMPUTATIONS)
def test_agrees_with_flop_counter_mode(name):
    on_numpy, on_torch = COMPUTATIONS[name]
    with FlopCounterMode(display=False) as counter:
        on_torch(lambda *shape: torch.from_numpy(np.asarray(rand(*shape))))
    assert measured_macs(lambda: on_numpy(rand)) == counter.get_total_flops() // 2


def test_counts_each_product_only_while_measuring():
    assert measured_macs(lambda: rand(5, 3) @ rand(3, 7)) == 5 * 3 * 7
    assert measured_macs(lambda: (rand(2, 3) @ rand(3, 4), rand(4, 4) @ rand(4, 1))) == 2 * 3 * 4 + 4 * 4 * 1
    assert measured_macs(lambda: np.asarray(rand(5, 3)) @ np.asarray(rand(3, 7))) == 0  # plain arrays are not inputs of a test


def test_matrix_vector_products_are_priced():
    # FlopCounterMode counts these as 0; the tests avoid them, and this counter prices them in full.
    assert measured_macs(lambda: rand(4, 3) @ rand(3)) == 12
    assert measured_macs(lambda: rand(3) @ rand(3)) == 3


def test_products_without_a_rule_fail_loudly():
    with pytest.raises(UnpricedOperation, match="einsum"):
        measured_macs(lambda: np.einsum("ij,jk->ik", rand(2, 3), rand(3, 4)))
    assert np.einsum("ij,jk->ik", rand(2, 3), rand(3, 4)).shape == (2, 4)  # outside the counter, as usual
