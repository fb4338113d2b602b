"""Seeded test inputs: the same arrays for the same seed, different ones for another; they reach the student as tensors."""

import numpy as np

from autograder.sandbox.worker import wire
from autograder.testkit.inputs import TensorArray, rand, randint, randn, tensor


def test_randn_is_fixed_by_its_seed_and_scaled():
    a = randn(3, 4, seed=7)
    assert isinstance(a, TensorArray) and a.dtype == np.float64 and a.shape == (3, 4)
    assert np.array_equal(a, randn(3, 4, seed=7))
    assert not np.array_equal(a, randn(3, 4, seed=8))
    assert np.array_equal(randn(3, 4, seed=7, scale=0.5), 0.5 * a)
    assert randn(2, seed=1, dtype=np.float32).dtype == np.float32


def test_rand_is_uniform_in_the_unit_interval_and_fixed_by_its_seed():
    u = rand(1000, seed=3)
    assert np.array_equal(u, rand(1000, seed=3))
    assert 0.0 <= float(u.min()) and float(u.max()) < 1.0 and 0.4 < float(u.mean()) < 0.6
    k = randint(0, 5, (100,), seed=1)
    assert k.dtype == np.int64 and set(np.unique(k)) <= set(range(5))


def test_arithmetic_and_slices_stay_tensors_on_the_wire_and_plain_arrays_do_not():
    x = randn(4, 3, seed=1)
    for value in (x, x[1:, :2], x / 10 + 1, x @ x.T, np.concatenate([x, x]), tensor([[1.0, 2.0]])):
        tree, blobs = wire.encode(value, lambda v: (v, "ndarray") if isinstance(v, np.ndarray) else None)
        assert tree["kind"] == "tensor" and type(blobs[0]) is np.ndarray
        assert np.array_equal(blobs[0], np.asarray(value))
    tree, _ = wire.encode(np.asarray(x), lambda v: (v, "ndarray"))
    assert tree["kind"] == "ndarray"
    assert tensor([[1.0, 2.0]]).dtype == np.float64 and tensor([[1, 2]]).dtype == np.int64
