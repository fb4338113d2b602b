"""The boundary: what a submission sends comes out as valid, inert text and bounded structures."""

import json

import pytest

from autograder.sandbox import boundary


def test_lone_surrogates_and_control_characters_are_escaped_and_the_rest_kept():
    made = boundary.text("caf\u00e9 \udc80 \x1b[31mred\x00\ttab\nline \u0085 \u202eevil")
    assert made == "caf\u00e9 \\udc80 \\x1b[31mred\\x00\ttab\nline \\x85 \\u202eevil"
    made.encode("utf-8")  # strict: what every writer does


def test_a_tree_has_every_string_escaped_keys_too():
    assert boundary.tree({"\udc80": ["a\x07", {"k": "\ud800"}], "n": 1}) == {"\\udc80": ["a\\x07", {"k": "\\ud800"}], "n": 1}


def test_a_tree_nested_deeper_than_allowed_is_a_value_error():
    deep = json.loads("[" * 200 + "]" * 200)
    with pytest.raises(ValueError):
        boundary.tree(deep)


@pytest.mark.parametrize("depth", [1800, 100_000])
def test_deep_brackets_are_a_value_error_before_any_parse(depth):
    with pytest.raises(ValueError):
        boundary.json_value(b"[" * depth + b"]" * depth, 1 << 20)


def test_json_that_fits_is_parsed_with_its_strings_escaped():
    assert boundary.json_value(b'[["p\\udc80.py", 3, "f"]]', 4096) == [["p\\udc80.py", 3, "f"]]
    assert boundary.json_value(b'["[[[[", "]"]', 4096, max_depth=1) == ["[[[[", "]"]  # brackets in strings are text
    with pytest.raises(ValueError):
        boundary.json_value(b"[1]" * 10, 5)
