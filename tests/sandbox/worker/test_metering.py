"""What a metered call reports: torch's work (views free, gathers priced by what they read), random draws, the memory cap."""

import resource

import pytest
import torch

from autograder.grading import proxy
from autograder.sandbox.worker import metering

torch.set_num_threads(1)


def cost(func, *args, **options):
    return metering.metered(func, args, {}, {"work": True} | options)[1]


def prefix_sums(x):
    return x.cumsum(0) * 2


def every_prefix_again(x):  # linear memory, quadratic time
    return torch.stack([x[: i + 1].sum(0) for i in range(x.shape[0])])


def token_loop(x):  # a view of the whole tensor per token: views cost nothing, so this stays linear
    return torch.stack([x[i] * 2 for i in range(x.shape[0])])


@pytest.mark.parametrize("func, growth", [(prefix_sums, (3.5, 4.5)), (token_loop, (3.5, 4.5)), (every_prefix_again, (12, 17))])
def test_work_grows_as_the_computation_does(func, growth):
    small, large = (cost(func, torch.ones(n, 3, dtype=torch.float64))["work"] for n in (64, 256))
    assert growth[0] <= large / small <= growth[1]


def test_matrix_products_count_their_multiply_accumulates():
    a, b = torch.ones(5, 7, dtype=torch.float64), torch.ones(7, 3, dtype=torch.float64)
    report = cost(lambda: a @ b)
    assert report["work"] >= 5 * 7 * 3
    assert report["largest_tensor"] == 15


def test_random_draws_are_counted_and_a_reseeded_generator_draws_nothing_new():
    def fresh(g):
        return [torch.randn(10, generator=g, dtype=torch.float64) for _ in range(2)]

    def reseeded(g):
        return [torch.randn(10, generator=g.manual_seed(0), dtype=torch.float64) for _ in range(2)]

    once = cost(fresh, torch.Generator().manual_seed(0))
    again = cost(reseeded, torch.Generator().manual_seed(0))
    assert once["random_elements"] == again["random_elements"] == 20
    assert once["random_distinct"] == 20 and again["random_distinct"] == 10


def test_in_place_and_functional_draws_count_alike():
    g = torch.Generator().manual_seed(1)
    report = cost(lambda: (torch.empty(7).normal_(generator=g), torch.normal(0.0, 1.0, size=(2, 3), generator=g), torch.rand(4, generator=g)))
    assert report["random_elements"] == 17


def test_the_memory_cap_refuses_what_does_not_fit_and_is_lifted_afterwards():
    before = resource.getrlimit(resource.RLIMIT_AS)
    with pytest.raises((MemoryError, RuntimeError)):
        metering.metered(lambda: torch.ones(64 << 20, dtype=torch.float64), (), {}, {"memory_mb": 64})  # 512 MiB
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    value, report = metering.metered(lambda: torch.ones(1 << 20, dtype=torch.float64).sum(), (), {}, {"memory_mb": 64})
    assert float(value) == 1 << 20 and report["memory_capped"] is True and resource.getrlimit(resource.RLIMIT_AS) == before


def test_without_work_only_cpu_time_is_reported():
    value, report = metering.metered(lambda x: x + 1, (1,), {}, {})
    assert value == 2 and set(report) == {"cpu_seconds"}


@pytest.mark.parametrize("bad", [None, [], {"work": -1}, {"work": float("nan")}, {"work": True}, {"owned": 1}, {"memory_capped": 1}])
def test_the_grader_refuses_a_report_it_cannot_trust(bad):
    with pytest.raises(ValueError):
        metering.read_report(bad)


def test_a_metered_call_is_taped_apart_from_the_same_call_unmetered():
    class Session:
        exchanges: list = []

        def call(self, module, func, args, kwargs, seconds, shown, meter=None):
            return ("value", {"cpu_seconds": 0.5}) if meter is not None else "value"

    fn = proxy.StudentFunction(Session(), "m", "f", 5, "m", proxy.CallGuard())
    tape = proxy.Tape()
    with proxy.on_tape(tape):
        assert fn(1) == "value"
        assert fn.metered((1,), {}, {"work": True}) == ("value", {"cpu_seconds": 0.5})
        tape.recording = False
        assert fn(1) == "value"
        assert fn.metered((1,), {}, {"work": True}) == ("value", {"cpu_seconds": 0.5})
    assert not tape.diverged
