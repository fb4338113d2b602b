"""Read docs/spec_coverage.md: one section per problem, one table row per rule of SPEC.md.

A problem's section is a ``## <module>`` heading; each of its table rows is
``| `rule.id` | what SPEC.md says | `hidden_test`, ... | `mistake`, ... |``. The ``## Leniencies``
section has rows ``| `leniency.id` | what SPEC.md allows | `module/fair_variant`, ... |``.
Any other section is prose for the reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from autograder.model import paths

DOC = paths.ROOT / "docs" / "spec_coverage.md"
LENIENCIES = "Leniencies"
_NAME = re.compile(r"`([^`]+)`")
_BAR = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class Rule:
    """One rule of SPEC.md: the hidden tests that fail when only it is broken, and the mistakes that show it."""

    module: str
    id: str
    clause: str
    tests: tuple[str, ...]
    mistakes: tuple[str, ...]


@dataclass(frozen=True)
class Leniency:
    """Something SPEC.md accepts, and the fair variants (``module/name``) that rely on it."""

    id: str
    clause: str
    fair: tuple[str, ...]


def _cells(line: str) -> list[str]:
    """The cells of a table row; ``\\|`` is a literal bar inside a cell."""
    return [cell.strip() for cell in _BAR.split(line.strip()[1:-1])]


def _names(cell: str) -> tuple[str, ...]:
    return tuple(_NAME.findall(cell))


def read(modules: list[str], doc: Path = DOC) -> tuple[list[Rule], list[Leniency]]:
    """Every rule row under a problem's heading, and every leniency row."""
    rules, leniencies, section = [], [], None
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
            continue
        if not line.startswith("| `"):
            continue
        cells = _cells(line)
        ids = _names(cells[0])
        if section in modules and len(cells) == 4 and len(ids) == 1:
            rules.append(Rule(section, ids[0], cells[1], _names(cells[2]), _names(cells[3])))
        elif section == LENIENCIES and len(cells) == 3 and len(ids) == 1:
            leniencies.append(Leniency(ids[0], cells[1], _names(cells[2])))
        elif section in modules or section == LENIENCIES:
            raise ValueError(f"{doc}: a row of section {section!r} does not have the expected cells: {line}")
    return rules, leniencies
