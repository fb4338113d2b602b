"""The grader/worker byte format round-trips plain data and refuses anything else."""

import os

import numpy as np
import pytest

from autograder.sandbox import wire


def roundtrip(value):
    r, w = os.pipe()
    tree, blobs = wire.encode(value, lambda v: (v, "ndarray") if isinstance(v, np.ndarray) else None)
    wire.write_message(w, {"v": tree}, blobs)
    header, got_blobs = wire.read_message(r)
    os.close(r)
    os.close(w)
    return wire.decode(header["v"], got_blobs, {"tensor": lambda a: a, "generator": wire.Seeded, "named": wire.Named})


def test_plain_values_roundtrip():
    value = (1, 2**80, 2.5, float("nan"), "s", None, True, [1, {2, 3}], {"k": np.arange(6.0).reshape(2, 3)})
    got = roundtrip(value)
    assert got[:3] == (1, 2**80, 2.5) and np.isnan(got[3]) and got[4:8] == ("s", None, True, [1, {2, 3}])
    assert np.array_equal(got[8]["k"], np.arange(6.0).reshape(2, 3))


def test_objects_cross_as_unsupported_not_as_code():
    got = roundtrip(x for x in range(3))
    assert isinstance(got, wire.Unsupported) and got.type_name == "generator"


def test_disallowed_dtype_is_refused():
    assert isinstance(roundtrip(np.array([object()], dtype=object)), wire.Unsupported)


def test_forged_header_is_rejected():
    with pytest.raises(wire.WireError):
        wire.decode({"t": "array", "blob": 0, "dtype": "float64", "shape": [5], "kind": "ndarray"}, [np.zeros(2)], {})
    with pytest.raises(wire.WireError):
        wire.decode({"t": "pickle", "v": "..."}, [], {})
    r, w = os.pipe()
    os.write(w, (10).to_bytes(8, "little") + b"not json!!")
    with pytest.raises(wire.WireError):
        wire.read_message(r)
