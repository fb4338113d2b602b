"""The one place where what a submission sends becomes the grader's data.

Whatever student code can shape (a reply's strings, an exception's message, a printed line) passes here once: every
string comes out as valid text (lone surrogates and control characters escaped, so a strict UTF-8 writer, a terminal or
an HTML page can take it as it is), and every structure parsed from it is bounded in depth and size (a parse that fails
is the fault of the call that sent it, a ``ValueError``, never a ``RecursionError`` in a grader's thread).
"""

from __future__ import annotations

import json
import re
from typing import Any

# Control characters (C0 but newline and tab, DEL, C1), the bidirectional marks and overrides that reorder what a line
# shows, and lone surrogates: what a terminal acts on, a reader is misled by, or a strict UTF-8 encoder refuses.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
MAX_PARSE_DEPTH = 32
# A reply's header: a value tree (``wire.MAX_DEPTH`` levels of two JSON levels each) inside a few levels of its own.
MAX_TREE_DEPTH = 64


def _escaped(found: re.Match) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def text(value: object) -> str:
    """``value`` as valid, inert text: each lone surrogate and control character (newline and tab kept) written as its
    Python escape (``\\udc80``, ``\\x1b``)."""
    value = value if isinstance(value, str) else str(value)
    return _UNSAFE.sub(_escaped, value) if _UNSAFE.search(value) else value


def tree(value: Any, max_depth: int = MAX_TREE_DEPTH) -> Any:
    """A parsed JSON tree (dicts, lists, strings, numbers) with every string, keys too, made ``text``; ``ValueError``
    when it is nested deeper than ``max_depth``."""
    if isinstance(value, str):
        return text(value)
    if isinstance(value, (dict, list)) and max_depth <= 0:
        raise ValueError("a reply nested too deep")
    if isinstance(value, dict):
        return {text(k) if isinstance(k, str) else k: tree(v, max_depth - 1) for k, v in value.items()}
    if isinstance(value, list):
        return [tree(v, max_depth - 1) for v in value]
    return value


def json_value(data: bytes | str, max_bytes: int, max_depth: int = MAX_PARSE_DEPTH) -> Any:
    """``data`` parsed as JSON, its strings made ``text``; ``ValueError`` when it is not JSON, longer than ``max_bytes``
    or nested deeper than ``max_depth`` (measured before parsing, so no depth reaches the parser's recursion)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if len(raw) > max_bytes:
        raise ValueError(f"{len(raw)} bytes, at most {max_bytes}")
    if nesting(raw) > max_depth:
        raise ValueError(f"nested deeper than {max_depth} levels")
    try:
        return tree(json.loads(raw), max_depth)
    except (UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(str(exc)) from None


def nesting(raw: bytes) -> int:
    """The deepest nesting of brackets and braces in JSON text, strings left out."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest
