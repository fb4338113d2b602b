"""What this machine allows for the Gradescope emulation: a skip names what is missing."""

from __future__ import annotations

import os

import pytest

from autograder.gradescope import container


def real_cgroup(caps: container.Caps) -> container.Cgroup:
    """A capped cgroup on this machine, or a skip saying why there is none."""
    if os.geteuid() != 0:
        pytest.skip("not root: creating a cgroup needs root")
    try:
        return container.create(caps)
    except container.CgroupUnavailable as exc:
        pytest.skip(f"this machine has no writable cgroup hierarchy: {exc}")


def require_emulation() -> None:
    """Skip unless Gradescope's container can be emulated here: root (for /autograder) and a capped cgroup."""
    real_cgroup(container.Caps(cpus=0.5, memory_mb=768)).close()
