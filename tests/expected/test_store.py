"""A store's arrays read back from its .npz file: the same values, dtypes, shapes and order as saved, writable, and
without numpy's reading of the zip entry at each access."""

import numpy as np
import pytest

from autograder.expected import store as store_module
from autograder.expected.store import Entry, Store, encode_inputs, exact_key
from autograder.sandbox import codec
from autograder.sandbox.worker import wire

SAVED = [
    np.arange(12, dtype=np.float64).reshape(3, 4) / 7,
    np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
    np.array([3.5], dtype=np.float16),
    np.zeros((0, 5), dtype=np.int64),
    np.array([True, False, True]),
    np.arange(-4, 4, dtype=np.int8),
    np.arange(7, dtype=np.uint8).reshape(7, 1, 1),
]


@pytest.fixture
def loaded(tmp_path):
    made = Store("demo")
    for i, array in enumerate(SAVED):
        entry = Entry("f", encode_inputs((i,), {}), True, wire.encode(array, codec.to_array))
        made.entries[exact_key("f", *entry.inputs)] = entry
    made.save(tmp_path)
    return Store.load(tmp_path, "demo")


def outputs(store: Store) -> list[np.ndarray]:
    return [store_module.decode(store.find("f", (i,), {}).output) for i in range(len(SAVED))]


def test_arrays_come_back_as_saved_and_writable(loaded):
    for _ in range(2):  # the first access finds each array's place, the second reads from there
        for got, saved in zip(outputs(loaded), SAVED, strict=True):
            assert got.dtype == saved.dtype and got.shape == saved.shape and np.array_equal(got, saved)
            assert got.flags.writeable
            got[...] = 0  # a test may change what it got: the next access reads the file again
    assert all(np.array_equal(got, saved) for got, saved in zip(outputs(loaded), SAVED, strict=True))


def test_numpys_reading_of_the_zip_runs_once_per_array(loaded, monkeypatch):
    outputs(loaded)
    monkeypatch.setattr(np.lib.npyio.NpzFile, "__getitem__", lambda self, key: pytest.fail("read through numpy"))
    assert all(np.array_equal(got, saved) for got, saved in zip(outputs(loaded), SAVED, strict=True))


def test_where_the_system_cannot_read_at_an_offset_numpy_reads(loaded, monkeypatch):
    monkeypatch.delattr("os.preadv")
    assert all(np.array_equal(got, saved) for got, saved in zip(outputs(loaded), SAVED, strict=True))
