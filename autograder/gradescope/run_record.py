"""The run record: the grader's notes on one run, for staff, beside results.json (Gradescope shows it to nobody).

The zip's entry point and ``grade`` write it; the emulation reads it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

# Beside results.json, for staff only (the emulation reads it): the grader's notes on this run, one JSON object a line:
# {"staff_notes": [...]} when the run starts, then {"refused": kind} for every call stopped at its limit or not run,
# {"printed": {module: text}} with everything a module's code printed (hidden tests' too, which results.json never
# shows), and at the end {"staff_notes": [...]} again for every test the grader could not judge (its fault: a regrade is
# due).
RUN_RECORD = "autograder_run.jsonl"


def record_run(entry: dict, folder: Path) -> None:
    """Add one line to the run record in ``folder`` (nothing when there is no such folder)."""
    if folder.is_dir():
        with open(folder / RUN_RECORD, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def read_run_record(folder: Path) -> tuple[list[str], Counter]:
    """The staff notes and the count of refused calls by kind that a run left in ``folder`` (empty when it left
    none)."""
    notes: list[str] = []
    refused: Counter = Counter()
    try:
        lines = (folder / RUN_RECORD).read_text(encoding="utf-8").splitlines()
    except OSError:
        return notes, refused
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        notes += [str(n) for n in entry.get("staff_notes", [])] if isinstance(entry, dict) else []
        if isinstance(entry, dict) and isinstance(entry.get("refused"), str):
            refused[entry["refused"]] += 1
    return notes, refused
