"""A test's Named("...") functions come from its problem's callables.py, attached before the call crosses."""

import pytest

from autograder.grading import named
from autograder.model import manifest
from autograder.sandbox.worker import callables, wire


def test_every_named_function_in_a_call_carries_its_problem_s_callables_and_dtypes_cross_as_names():
    args, kwargs = named.with_callables("causal_linear_attention", (1, [wire.Named("relu")]),
                                        {"feature_map": wire.Named("softplus"), "dtype": wire.Named("torch.float32")})
    source = manifest.callables_source("causal_linear_attention")
    assert source and args[1][0].source == source and kwargs["feature_map"].source == source
    assert kwargs["dtype"].source is None and args[0] == 1
    same = (wire.Named("relu"),)
    assert named.with_callables("qkv_arithmetic", same, {}) == (same, {})  # no callables.py: nothing attached


def test_the_receiving_side_builds_the_function_from_the_source_and_refuses_other_names():
    torch = pytest.importorskip("torch")
    source = manifest.callables_source("causal_linear_attention")
    assert callables.build("relu", source)(torch.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]
    assert callables.build("torch.float64") is torch.float64
    with pytest.raises(ValueError, match="defines no public function"):
        callables.build("missing", source)
    with pytest.raises(ValueError, match="callables.py"):
        callables.build("relu")


def test_the_source_crosses_the_wire_with_the_name():
    tree, blobs = wire.encode(wire.Named("relu", "def relu(x):\n    return x\n"), lambda v: None)
    made = wire.decode(tree, blobs, {"named": lambda name, source=None: (name, source)})
    assert made == ("relu", "def relu(x):\n    return x\n")
