"""The machine's protections are probed once, and may be probed early on a thread while the command is imported."""

import threading

import pytest

from autograder.sandbox import policy


@pytest.fixture
def fresh_probes(monkeypatch):
    monkeypatch.delenv(policy.PORTABLE_ENV, raising=False)
    monkeypatch.setattr(policy, "_EARLY", [])
    policy._detect.cache_clear()
    yield
    policy._detect.cache_clear()


def test_early_probes_give_what_probing_now_gives(fresh_probes, monkeypatch):
    now = policy.detect()
    policy._detect.cache_clear()
    calls = []
    real = policy._detect.__wrapped__
    monkeypatch.setattr(policy, "_detect", policy.functools.lru_cache(maxsize=1)(lambda: calls.append(1) or real()))
    policy.detect_soon()
    policy.detect_soon()  # a second call starts nothing more
    assert len(policy._EARLY) == 1 and policy._EARLY[0].name == "autograder-probes"
    assert policy.detect() == now
    assert not policy._EARLY[0].is_alive() and calls == [1]  # detect waited for the early probes instead of probing again


def test_no_early_probes_on_the_portable_path(fresh_probes, monkeypatch):
    monkeypatch.setenv(policy.PORTABLE_ENV, "1")
    before = threading.active_count()
    policy.detect_soon()
    assert policy._EARLY == [] and threading.active_count() == before
