"""Seeded test inputs: the same tensors for the same seed, different ones for another."""

import torch

from autograder.inputs import rand, randn


def test_randn_is_fixed_by_its_seed_and_scaled():
    a = randn(3, 4, seed=7)
    assert a.dtype == torch.float64 and a.shape == (3, 4)
    assert torch.equal(a, randn(3, 4, seed=7))
    assert not torch.equal(a, randn(3, 4, seed=8))
    assert torch.equal(randn(3, 4, seed=7, scale=0.5), 0.5 * a)
    assert randn(2, seed=1, dtype=torch.float32).dtype == torch.float32


def test_rand_is_uniform_in_the_unit_interval_and_fixed_by_its_seed():
    u = rand(1000, seed=3)
    assert torch.equal(u, rand(1000, seed=3))
    assert 0.0 <= float(u.min()) and float(u.max()) < 1.0 and 0.4 < float(u.mean()) < 0.6
