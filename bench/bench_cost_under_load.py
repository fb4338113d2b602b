"""The long-sequence tests' verdicts idle and with busy processes beside the grader: they must be the same.

Grades, for problems 5 and 6, the reference, every fair variant and every known mistake whose name says it is
quadratic or blockwise, on the hidden long-sequence test only (its CPU check is the one a loaded machine could move),
``--rounds`` times idle and ``--rounds`` times with ``--busy`` processes per core spinning beside the grader, and prints
each variant's verdicts with the figures of a failure. Exits 1 when a variant's verdicts differ or a fair variant fails.

Run: .venv/bin/python bench/bench_cost_under_load.py [--rounds 2] [--busy 2]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grading.grader import grade_problem  # noqa: E402
from autograder.grading.runner import load_tests  # noqa: E402
from autograder.model import manifest  # noqa: E402
from autograder.sandbox import WorkerSession  # noqa: E402
from autograder.staff.validate import variant_sources  # noqa: E402

LONG_TEST = {"random_features": "test_rff_attention_long_sequence_in_linear_memory",
             "causal_linear_attention": "test_long_sequence_in_linear_memory"}
QUADRATIC = re.compile(r"quadratic|blockwise")


def spin() -> None:
    while True:
        pass


def verdicts(module: str) -> dict[str, tuple[bool, str]]:
    """label -> (passed, message) of the long-sequence test, for the variants this bench follows."""
    problem = manifest.load().problem(module)
    tests = [t for t in load_tests(problem, include_hidden=True) if t.name.endswith(LONG_TEST[module].removeprefix("test_"))]
    assert len(tests) == 1, [t.name for t in load_tests(problem, include_hidden=True)]
    chosen = [(label, kind, source) for label, kind, source in variant_sources(problem)
              if kind in ("reference", "fair") or (kind == "mistake" and QUADRATIC.search(label))]
    names = {label: f"{module}__{re.sub(r'[^0-9a-zA-Z_]', '_', label)}" for label, _, _ in chosen}
    session = WorkerSession(memory_mb=4096, start_now=True)
    try:
        session.switch(session.stage({names[label]: source.encode() for label, _, source in chosen}))
        found = {}
        for label, _, _ in chosen:
            (test,) = grade_problem(problem, tests, session, worker_name=names[label]).tests
            lines = test.message.splitlines()
            why = next((line for line in lines if "grew" in line or "memory" in line), lines[0] if lines else "")
            found[f"{module} {label}"] = (test.passed, why)
        return found
    finally:
        session.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--busy", type=int, default=2, help="spinning processes per core while loaded")
    args = parser.parse_args()
    seen: dict[str, list[str]] = {}
    messages: dict[str, str] = {}
    for loaded in (False, True):
        spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy * os.cpu_count())] \
            if loaded else []
        for spinner in spinners:
            spinner.start()
        try:
            for _ in range(args.rounds):
                for module in LONG_TEST:
                    for label, (passed, message) in verdicts(module).items():
                        seen.setdefault(label, []).append(("loaded " if loaded else "idle ") + ("pass" if passed else "FAIL"))
                        if not passed:
                            messages[label] = message
        finally:
            for spinner in spinners:
                spinner.kill()
    bad = False
    for label, marks in seen.items():
        same = len({m.split()[1] for m in marks}) == 1
        wrong = label.split()[1].startswith(("fair", "reference")) and any("FAIL" in m for m in marks)
        bad |= not same or wrong
        print(f"{'ok ' if same and not wrong else 'BAD'} {label}: {', '.join(marks)}")
        if label in messages:
            print(f"      {messages[label][:220]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
