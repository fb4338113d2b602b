"""The grader/worker byte format round-trips plain data and refuses anything else."""

import os

import numpy as np
import pytest

from autograder.sandbox.worker import wire


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


@pytest.mark.parametrize("dtype", [*wire.ALLOWED_DTYPES, ">f4", ">i8", "complex64", "float128", "U3", "M8[ns]",
                                   [("a", "f4")], ("f4", (2,))])
def test_dtype_name_is_numpys_name(dtype):
    found = np.dtype(dtype)
    assert wire.dtype_name(found) == found.name


SWAPPED = ">" if np.little_endian else "<"  # the byte order this machine does not use


@pytest.mark.parametrize("sent", [
    np.asarray([1.5, -2.25, 1e300, np.nan], dtype=SWAPPED + "f8"),
    np.asarray([1, -2, 2**40, -(2**62)], dtype=SWAPPED + "i8"),
    np.asarray([0.5, -3.0], dtype=SWAPPED + "f2"),
    np.arange(12, dtype=SWAPPED + "i4").reshape(3, 4).T,  # swapped and not contiguous
    np.arange(10, dtype=SWAPPED + "f4")[::-3],  # swapped, negative stride
    np.arange(10.0)[::-2],  # native, negative stride
    np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3)),
    np.zeros((0, 3), dtype=SWAPPED + "f8"),
])
def test_an_array_in_any_byte_order_or_layout_arrives_native_with_its_values(sent):
    got = roundtrip(sent)
    assert got.dtype == sent.dtype.newbyteorder("=") and got.dtype.isnative
    assert got.shape == sent.shape and np.array_equal(got, sent, equal_nan=True)


def test_encoded_arrays_are_native_before_they_cross():
    """What stays in the process (a recording of expected values) holds native arrays too."""
    sent = np.asarray([3.0, -1.0], dtype=SWAPPED + "f8")
    _, (blob,) = wire.encode(sent, lambda v: (v, "ndarray"))
    assert blob.dtype.isnative and np.array_equal(blob, sent)
    assert sent.dtype.byteorder == SWAPPED  # the caller's array is left as it was


def test_a_swapped_structured_array_stays_unsupported():
    assert isinstance(roundtrip(np.zeros(2, dtype=[("a", SWAPPED + "f4")])), wire.Unsupported)


@pytest.mark.parametrize("dtype", [">f8", "<f8", "=f8", "|u1", "f8"])
def test_a_blob_table_naming_a_byte_order_is_refused(dtype):
    """The reader takes no byte order from the sender: only the bare names, read in its own order."""
    import json

    r, w = os.pipe()
    os.write(w, _frame(json.dumps({"blob_sizes": [8], "blob_dtypes": [dtype]}).encode()) + b"\0" * 8)
    with pytest.raises(wire.WireError):
        wire.read_message(r)
    os.close(r)
    os.close(w)


def test_forged_header_is_rejected():
    with pytest.raises(wire.WireError):
        wire.decode({"t": "array", "blob": 0, "dtype": "float64", "shape": [5], "kind": "ndarray"}, [np.zeros(2)], {})
    with pytest.raises(wire.WireError):
        wire.decode({"t": "pickle", "v": "..."}, [], {})
    r, w = os.pipe()
    os.write(w, (10).to_bytes(8, "little") + b"not json!!")
    with pytest.raises(wire.WireError):
        wire.read_message(r)


def test_a_large_array_arrives_whole_and_writable_over_a_pipe():
    import threading

    sent = np.arange(3 * (1 << 17) + 5, dtype=np.float64)  # about 3 MiB: several reads, the last one partial
    r, w = os.pipe()
    writer = threading.Thread(target=lambda: (wire.write_message(w, {"kind": "x"}, [sent]), os.close(w)))
    writer.start()
    header, (got,) = wire.read_message(r)
    writer.join()
    os.close(r)
    assert header == {"kind": "x"}
    assert got.dtype == sent.dtype and np.array_equal(got, sent)
    got[0] = -1.0  # the grader may hand it to code that writes in place
    assert got.flags.writeable


def test_a_channel_closed_mid_array_is_an_eof():
    r, w = os.pipe()
    header = b'{"blob_sizes": [800], "blob_dtypes": ["float64"]}'
    os.write(w, wire._LEN.pack(len(header)) + header + b"\0" * 100)
    os.close(w)
    with pytest.raises(EOFError):
        wire.read_message(r)
    os.close(r)


def _frame(header_bytes: bytes) -> bytes:
    return len(header_bytes).to_bytes(8, "little") + header_bytes


@pytest.mark.parametrize("blob_table", [
    {"blob_sizes": [1 << 40], "blob_dtypes": ["uint8"]},           # more than the reader allows
    {"blob_sizes": [-8], "blob_dtypes": ["float64"]},               # negative
    {"blob_sizes": [8.0], "blob_dtypes": ["float64"]},              # not a count
    {"blob_sizes": [7], "blob_dtypes": ["float64"]},                # not whole items
    {"blob_sizes": [0] * (wire.MAX_BLOBS + 1), "blob_dtypes": ["uint8"] * (wire.MAX_BLOBS + 1)},
    {"blob_sizes": 5, "blob_dtypes": "x"},
])
def test_a_forged_blob_table_is_refused_before_anything_is_read(blob_table):
    import json

    r, w = os.pipe()
    os.write(w, _frame(json.dumps({"ok": True, **blob_table}).encode()))
    with pytest.raises(wire.WireError):
        wire.read_message(r, max_blob_bytes=1 << 20)
    os.close(r)
    os.close(w)


def test_a_forged_500_mb_header_is_refused_before_it_is_read():
    """A forged header's length alone is refused; nothing of that size is allocated or waited for."""
    asked = []

    def read_exact(fd, n):
        asked.append(n)
        return (500 << 20).to_bytes(8, "little") if n == 8 else b""

    with pytest.raises(wire.WireError, match="oversized header"):
        wire.read_message(-1, read_exact)
    assert asked == [8]


def test_pipes_get_a_wide_buffer():
    fcntl = pytest.importorskip("fcntl")
    r, w = os.pipe()
    try:
        before = fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
        wire.widen_pipe(w)
        assert before < wire.PIPE_BYTES == fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
    finally:
        os.close(r)
        os.close(w)


def test_encoding_and_decoding_keep_no_array_alive_once_dropped() -> None:
    """Without a collection: the nested encoders must not hold the arrays in a reference cycle (a grader receiving
    replies of hundreds of MB would keep each until the collector ran)."""
    import gc
    import weakref

    gc.disable()
    try:
        array = np.arange(12.0).reshape(3, 4)
        tree, blobs = wire.encode({"x": [array]}, lambda v: (v, "ndarray") if isinstance(v, np.ndarray) else None)
        received = [blob.copy() for blob in blobs]
        sent, got = weakref.ref(blobs[0]), weakref.ref(received[0])
        value = wire.decode(tree, received, {"tensor": lambda a: a, "generator": int, "named": str})
        assert np.array_equal(value["x"][0], array)
        del tree, blobs, received, value
        assert sent() is None or sent() is array  # an array already contiguous is sent as it is
        assert got() is None
    finally:
        gc.enable()
