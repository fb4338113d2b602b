"""Printed output cut for a table: whole lines from the start and the end, and a marker saying what was left out."""

from autograder.reports import printed


def test_short_output_is_shown_whole():
    assert printed.shown("one\ntwo\n") == "one\ntwo"


def test_long_output_keeps_whole_first_and_last_lines_around_a_marker():
    text = "".join(f"line {i}\n" for i in range(1000))
    shown = printed.shown(text)
    lines = shown.split("\n")
    assert len(shown) <= printed.SHOWN_CHARACTERS + 100
    assert lines[0] == "line 0" and lines[-1] == "line 999"
    marker = next(line for line in lines if line.startswith("[... "))
    kept = [line for line in lines if line.startswith("line ")]
    assert marker == f"[... {1000 - len(kept):,} lines ({sum(len(f'line {i}') + 1 for i in range(1000)) - sum(len(k) + 1 for k in kept):,} characters) not shown here ...]"
    assert all(line in text.split("\n") for line in kept)  # no line starts or ends mid-way


def test_one_huge_line_is_cut_with_a_marker_too():
    shown = printed.shown("x" * 100_000)
    assert len(shown) < 400 and shown.endswith(f"[... {100_000 - printed.LONGEST_LINE:,} more characters on this line]")
