"""What several commands check before any work: a count of jobs, a file to write."""

import argparse
import os

import pytest

from autograder.commands.common import at_least_one, unwritable


def test_a_count_of_jobs_is_a_whole_number_of_one_or_more():
    assert at_least_one("3") == 3
    for text, says in (("0", "0 is too few"), ("-2", "-2 is too few"), ("two", "'two' is not a whole number")):
        with pytest.raises(argparse.ArgumentTypeError, match=says):
            at_least_one(text)


def test_an_output_that_cannot_be_written_is_explained(tmp_path):
    assert unwritable(tmp_path / "new" / "deeper" / "grades.csv", "grades.csv") is None  # made on the way
    assert unwritable(tmp_path / "grades.csv", "grades.csv") is None
    assert unwritable(tmp_path, "grades.csv") == f"--out {tmp_path} is a folder; pass the file to write, e.g. --out {tmp_path / 'grades.csv'}"
    (tmp_path / "file").write_text("")
    assert unwritable(tmp_path / "file" / "x" / "r.json", "results.json") == (
        f"--out {tmp_path / 'file' / 'x' / 'r.json'}: {tmp_path / 'file'} is a file, not a folder; pass --out inside a folder")


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any folder")
def test_a_folder_this_user_may_not_write_is_explained(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    assert "may not be written by this user" in unwritable(locked / "grades.csv", "grades.csv")
