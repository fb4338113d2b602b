"""Background: grader work that starts at once on its own thread and hands back its value or its error."""

import threading

import pytest

from autograder.testkit.background import Background


def test_starts_at_once_and_returns_the_value():
    started = threading.Event()

    def compute():
        started.set()
        return 42

    job = Background(compute)
    assert started.wait(timeout=30), "the computation did not start before result() was asked for"
    assert job.result() == 42
    assert job.result() == 42  # asking again gives the same value without computing again


def test_result_reraises_the_error():
    job = Background(lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        job.result()


def test_result_waits_for_a_slow_computation():
    release = threading.Event()
    job = Background(lambda: release.wait(timeout=30) and "done")
    release.set()
    assert job.result() == "done"
