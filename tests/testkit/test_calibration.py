"""The machine's yardstick: linear attention in numpy, timed in the grader's own thread, measured again when stale."""

from __future__ import annotations

import numpy as np
import pytest

from autograder.testkit import calibration


@pytest.fixture
def clock(monkeypatch):
    """A monotonic clock the test moves, and a count of the measurements made."""
    now, made = [1000.0], []
    monkeypatch.setattr(calibration.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(calibration, "_seconds_per_token", lambda: made.append(1) or 1e-6 * len(made))
    monkeypatch.setattr(calibration, "_MEASURED", [])
    return now, made


def test_the_yardstick_is_proportional_to_the_tokens_and_measured_once_while_fresh(clock):
    now, made = clock
    assert calibration.linear_attention_seconds(8192) == pytest.approx(8192e-6)
    now[0] += calibration.REMEASURE_AFTER
    assert calibration.linear_attention_seconds(1024) == pytest.approx(1024e-6)
    assert len(made) == 1


def test_a_stale_yardstick_is_measured_again(clock):
    now, made = clock
    calibration.linear_attention_seconds(8192)
    now[0] += calibration.REMEASURE_AFTER + 1
    assert calibration.linear_attention_seconds(8192) == pytest.approx(2 * 8192e-6)
    assert len(made) == 2


def runs_against(monkeypatch, readings) -> list[int]:
    """Time ``_seconds_per_token`` against a thread clock giving ``readings`` (seconds, one per reading); the runs."""
    runs: list[int] = []
    monkeypatch.setattr(calibration.time, "thread_time", lambda: next(readings))
    monkeypatch.setattr(calibration, "_linear_attention", lambda *args: runs.append(1))
    return runs


def test_a_coarse_thread_clock_is_read_until_it_has_advanced(monkeypatch):
    # Windows' thread clock moves in ticks of 15.6 ms: the first 10 readings say no time has passed.
    runs = runs_against(monkeypatch, iter([0.0] * 10 + [0.0156] * 10))
    per_token = calibration._seconds_per_token()
    timed = len(runs) - 1  # the first run is not timed
    assert timed > calibration.MIN_RUNS
    assert per_token == pytest.approx(0.0156 / (timed * calibration.TOKENS))


def test_a_clock_that_never_advances_gives_a_yardstick_above_zero(monkeypatch):
    runs = runs_against(monkeypatch, iter(lambda: 0.0, None))
    assert calibration._seconds_per_token() == pytest.approx(
        calibration.MIN_SECONDS / (calibration.MAX_RUNS * calibration.TOKENS))
    assert len(runs) == calibration.MAX_RUNS + 1


def test_the_measured_workload_is_linear_attention(monkeypatch):
    # What the yardstick times is the linear form it is named after, into its buffers.
    rng = np.random.default_rng(1)
    q, k, v = rng.standard_normal((64, 2)), rng.standard_normal((64, 2)), rng.standard_normal((64, 3))
    into = {"phi_q": np.empty_like(q), "phi_k": np.empty_like(k), "sums": np.empty((64, 2, 3)),
            "key_sums": np.empty_like(k), "norms": np.empty(64), "out": np.empty_like(v)}
    calibration._linear_attention(q, k, v, into)
    weights = np.tril(np.exp(q) @ np.exp(k).T)
    assert np.allclose(into["out"], weights @ v / weights.sum(axis=1, keepdims=True))
