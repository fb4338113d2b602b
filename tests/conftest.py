"""Shared fixtures: the assignment manifest, loaded once."""

import pytest

from autograder import manifest


@pytest.fixture(scope="session")
def assignment():
    return manifest.load()
