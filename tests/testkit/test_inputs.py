"""Seeded test inputs: the same arrays for the same seed, different ones for another; they reach the student as tensors."""

import numpy as np

from autograder.sandbox.worker import wire
from autograder.testkit import inputs
from autograder.testkit.inputs import TensorArray, rand, randint, randn, tensor


def counting_generators(monkeypatch) -> list[int]:
    """The seeds of the numpy generators made from now on."""
    made, make = [], np.random.default_rng

    def counted(seed):
        made.append(seed)
        return make(seed)

    monkeypatch.setattr(inputs.np.random, "default_rng", counted)
    return made


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


def test_a_draw_asked_for_again_is_drawn_once_and_each_caller_may_change_its_copy(monkeypatch):
    made = counting_generators(monkeypatch)
    first = randn(5, 6, seed=918_273, scale=0.5)
    expected = first.copy()
    first[:] = 0.0  # a test that changes its inputs changes nobody else's
    again = randn(5, 6, seed=918_273, scale=0.5)
    assert made == [918_273]
    assert isinstance(again, TensorArray) and again.flags.writeable
    assert np.array_equal(again, expected) and not np.array_equal(again, first)
    assert not np.shares_memory(again, randn(5, 6, seed=918_273, scale=0.5))
    # Another scale, dtype or kind of draw from the same seed is another draw.
    randn(5, 6, seed=918_273)
    randn(5, 6, seed=918_273, scale=0.5, dtype=np.float32)
    rand(5, 6, seed=918_273)
    randint(0, 9, (5, 6), seed=918_273)
    randint(0, 9, (5, 6), seed=918_273)
    assert made == [918_273] * 5


def test_the_draws_kept_stay_within_their_size_the_least_recently_used_leaving_first(monkeypatch):
    made = counting_generators(monkeypatch)
    monkeypatch.setattr(inputs, "DRAWS_KEPT_BYTES", 3 * 1000 * 8)  # three draws of 1000 float64
    for seed in range(1_000_001, 1_000_005):
        randn(1000, seed=seed)
    assert inputs._draws_bytes <= inputs.DRAWS_KEPT_BYTES
    randn(1000, seed=1_000_004)  # kept
    assert len(made) == 4
    randn(1000, seed=1_000_001)  # the first one left to make room
    assert made[4:] == [1_000_001]


def test_arithmetic_and_slices_stay_tensors_on_the_wire_and_plain_arrays_do_not():
    x = randn(4, 3, seed=1)
    for value in (x, x[1:, :2], x / 10 + 1, x @ x.T, np.concatenate([x, x]), tensor([[1.0, 2.0]])):
        tree, blobs = wire.encode(value, lambda v: (v, "ndarray") if isinstance(v, np.ndarray) else None)
        assert tree["kind"] == "tensor" and type(blobs[0]) is np.ndarray
        assert np.array_equal(blobs[0], np.asarray(value))
    tree, _ = wire.encode(np.asarray(x), lambda v: (v, "ndarray"))
    assert tree["kind"] == "ndarray"
    assert tensor([[1.0, 2.0]]).dtype == np.float64 and tensor([[1, 2]]).dtype == np.int64
