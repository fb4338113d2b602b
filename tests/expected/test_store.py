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


@pytest.mark.parametrize(("file", "damage"), [
    ("demo.json", lambda data: data[: len(data) // 2]),          # cut short
    ("demo.json", lambda data: b'{"module": "demo"}'),             # whole, but not what save wrote
    ("demo.json", lambda data: b"\xff\xfe" + data),                # not UTF-8
    ("demo.npz", lambda data: data[:100]),                         # not a zip any more
])
def test_a_damaged_file_is_the_graders_fault_naming_the_file_and_the_fix(tmp_path, file, damage):
    made = Store("demo")
    entry = Entry("f", encode_inputs((0,), {}), True, wire.encode(SAVED[0], codec.to_array))
    made.entries[exact_key("f", *entry.inputs)] = entry
    made.save(tmp_path)
    (tmp_path / file).write_bytes(damage((tmp_path / file).read_bytes()))
    with pytest.raises(store_module.MissingExpected, match=rf"{file} are damaged .*download the handout again"):
        Store.load(tmp_path, "demo")


def test_an_array_damaged_after_its_store_was_opened_is_the_graders_fault(loaded, tmp_path):
    npz = tmp_path / "demo.npz"
    npz.write_bytes(npz.read_bytes()[: npz.stat().st_size // 3])  # the arrays are read when a lookup needs them
    with pytest.raises(store_module.MissingExpected, match="demo.npz are damaged"):
        outputs(loaded)
