"""A pytest plugin for ``bench_suite.py``: the CPU and wall each test took, as JSON lines.

Each pytest process (an xdist worker, or the only one) moves itself into a cgroup of its own under the run's
(``BENCH_SUITE_CGROUP``), so the CPU of every process a test starts counts, also where nothing reaps them (a worker
inside bubblewrap); without it, the CPU of this process and of the children it reaped. A test's figures include its
fixtures' set-up, so a shared fixture is charged to the first test that asks for it.
"""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path

import pytest
from bench_speed import group_cpu_seconds  # beside this file: bench_suite.py puts bench/ on the path

_STATE: dict = {}


def _reaped_cpu() -> float:
    own, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime


def pytest_configure(config: pytest.Config) -> None:
    log = os.environ.get("BENCH_SUITE_LOG")
    if not log:
        return
    name = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _STATE["cpu"] = _reaped_cpu
    run_group = os.environ.get("BENCH_SUITE_CGROUP")
    if run_group:
        group = Path(run_group) / name
        kind = "cpuacct.usage" if (Path(run_group) / "cpuacct.usage").exists() else "cpu.stat"
        group.mkdir(exist_ok=True)
        (group / "cgroup.procs").write_text(str(os.getpid()))
        _STATE["cpu"] = lambda: group_cpu_seconds(group, kind)
    _STATE["log"] = open(f"{log}.{name}", "a", encoding="utf-8")  # noqa: SIM115 - open for the whole session


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if "log" not in _STATE:
        yield
        return
    cpu, wall = _STATE["cpu"](), time.monotonic()
    yield
    record = {"test": item.nodeid, "cpu": _STATE["cpu"]() - cpu, "wall": time.monotonic() - wall}
    _STATE["log"].write(json.dumps(record) + "\n")
    _STATE["log"].flush()
