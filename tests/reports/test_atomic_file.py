"""Outputs are replaced whole: a reader sees the old file or the new one, and no temporary file is left behind."""

import pytest

from autograder.reports import atomic_file


def test_write_replaces_whole_and_leaves_nothing_behind(tmp_path):
    path = tmp_path / "deep" / "grades.csv"
    atomic_file.write_text(path, "old\n")
    atomic_file.write_text(path, "név,ünï\n")
    assert path.read_bytes() == "név,ünï\n".encode() and [p.name for p in path.parent.iterdir()] == ["grades.csv"]


def test_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = atomic_file.write_bytes(tmp_path / "histogram.png", b"old")

    def broken(*args):
        raise OSError("disk full")

    monkeypatch.setattr(atomic_file.os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        atomic_file.write_bytes(path, b"new")
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["histogram.png"]
