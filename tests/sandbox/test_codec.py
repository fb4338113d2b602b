"""codec: a value the worker sends becomes the grader's data, or a ``WireError`` that calls the reply unreadable
(whatever its content makes decoding raise: the student's reply, never a crash of the grader)."""

import math

import numpy as np
import pytest

from autograder.sandbox import codec
from autograder.sandbox.worker import wire

UNREADABLE = {
    "a generator's seed of inf": ({"t": "generator", "seed": math.inf}, []),
    "the global seed at -inf": ({"t": "global_seed", "seed": -math.inf}, []),
    "a float of 400 digits": ({"t": "float", "v": 10**400}, []),
    "a shape past int64": ({"t": "array", "blob": 0, "shape": [2**70], "dtype": "float64"}, [np.zeros(1)]),
}


@pytest.mark.parametrize("tree, blobs", UNREADABLE.values(), ids=UNREADABLE)
def test_a_value_that_makes_decoding_raise_is_an_unreadable_reply(tree, blobs):
    with pytest.raises(wire.WireError, match="cannot be read|malformed|does not match"):
        codec.decode_value(tree, blobs)


def test_a_readable_value_is_decoded():
    got = codec.decode_value({"t": "array", "blob": 0, "shape": [2], "dtype": "float64"}, [np.array([1.0, 2.0])])
    assert isinstance(got, np.ndarray) and got.tolist() == [1.0, 2.0]
