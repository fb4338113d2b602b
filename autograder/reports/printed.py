"""What student code printed, cut to what a table can show: whole lines from its start and its end, with a marker
where lines were left out (the first lines say where the printing began, the last ones where it ended)."""

from __future__ import annotations

SHOWN_CHARACTERS = 2000
LONGEST_LINE = 300  # a longer line is cut too, so that one huge line cannot fill the room alone


def shown(text: str, limit: int = SHOWN_CHARACTERS) -> str:
    """``text`` whole when it fits ``limit`` characters, else its first and last lines around a line saying what is left
    out."""
    text = text.rstrip()
    if len(text) <= limit:
        return text
    lines = [_cut_line(line) for line in text.split("\n")]
    head, used = [], 0
    for line in lines:
        if used + len(line) + 1 > limit * 2 // 5 and head:
            break
        head.append(line)
        used += len(line) + 1
    tail, used = [], 0
    for line in reversed(lines[len(head):]):
        if used + len(line) + 1 > limit - limit * 2 // 5 and tail:
            break
        tail.append(line)
        used += len(line) + 1
    tail.reverse()
    left_out = len(lines) - len(head) - len(tail)
    if left_out <= 0:
        return "\n".join(head + tail)
    skipped = sum(len(line) + 1 for line in text.split("\n")[len(head):len(lines) - len(tail)])
    return "\n".join([*head, f"[... {left_out:,} lines ({skipped:,} characters) not shown here ...]", *tail])


def _cut_line(line: str) -> str:
    if len(line) <= LONGEST_LINE:
        return line
    return f"{line[:LONGEST_LINE]} [... {len(line) - LONGEST_LINE:,} more characters on this line]"
