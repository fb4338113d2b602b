"""A module's side of the wire: what a call returns as the grader reads it, and the watch that writes where a call was when its limit came."""

import _thread
import json
import os
import time

import numpy as np

from autograder.sandbox.worker import serving, wire


def reports(err: str) -> list[list]:
    """The stacks the watch wrote, innermost frame first, from what was written to stderr."""
    marker = serving.STACK_MARK.decode()
    return [json.loads(line.split(marker, 1)[1]) for line in err.splitlines() if marker in line]


def spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_a_call_at_its_limit_is_reported_once_and_each_call_by_one_thread(capfd):
    watch = serving.StackAtLimit()
    before = _thread._count()
    for _ in range(2):  # reported before the limit (0.3 s less a fifth), each call again
        watch.arm({"limit": 0.3})
        spin(0.6)
        watch.disarm()
    stacks = reports(capfd.readouterr().err)
    assert len(stacks) == 2 and all(stack[0][2] == "spin" and stack[1][2] == "test_a_call_at_its_limit_is_reported_once_and_each_call_by_one_thread"
                                    for stack in stacks)
    assert _thread._count() == before + 1  # one watching thread, woken by each arm


def test_a_call_done_in_time_or_without_a_limit_is_not_reported(capfd):
    watch = serving.StackAtLimit()
    watch.arm({"limit": 0.3})
    watch.disarm()
    watch.arm({})  # no limit: nothing to watch
    time.sleep(0.5)
    watch.arm({"limit": 5})
    spin(0.2)
    watch.disarm()
    assert reports(capfd.readouterr().err) == []


def test_a_global_seed_reaches_the_function_as_none_with_torch_s_global_state_set():
    import torch

    from autograder.sandbox.worker import wire

    tree, blobs = wire.encode({"generator": wire.GlobalSeed(21)}, lambda v: None)
    torch.manual_seed(0)
    decoded = wire.decode(tree, blobs, serving.argument_makers())
    drawn = torch.randn(4)
    torch.manual_seed(21)
    assert decoded == {"generator": None} and torch.equal(drawn, torch.randn(4))


def test_a_returned_array_in_the_other_byte_order_reaches_the_grader_with_its_values():
    """A student may return ``np.asarray(x, dtype=">f8")``: a correct value, however its bytes are ordered."""
    swapped = ">" if np.little_endian else "<"
    returned = (np.asarray([1.5, -2.0, 1e-300], dtype=swapped + "f8"), np.arange(5, dtype=swapped + "i8")[::-1])
    tree, blobs = serving.encode_result(returned)
    r, w = os.pipe()
    wire.write_message(w, {"value": tree}, blobs)
    header, got_blobs = wire.read_message(r)
    os.close(r)
    os.close(w)
    got = wire.decode(header["value"], got_blobs, serving.argument_makers())
    assert all(g.dtype.isnative and np.array_equal(g, sent) for g, sent in zip(got, returned, strict=True))


class OddDimension(ValueError):
    pass


class ValueErrorLookalike(Exception):
    __module__ = "builtins"  # claims to be the built-in


ValueErrorLookalike.__name__ = ValueErrorLookalike.__qualname__ = "ValueError"


def test_an_exception_is_reported_with_the_built_in_classes_it_is_an_instance_of_nearest_first():
    assert serving.describe_exception(OddDimension("odd"), "/nowhere")["builtins"] == ["ValueError", "Exception", "BaseException"]
    assert serving.describe_exception(UnicodeDecodeError("utf-8", b"", 0, 1, "x"), "/nowhere")["builtins"][:3] == [
        "UnicodeDecodeError", "UnicodeError", "ValueError"]
    described = serving.describe_exception(ValueErrorLookalike("odd"), "/nowhere")
    assert described["type"] == "ValueError" and described["builtins"] == ["Exception", "BaseException"]
