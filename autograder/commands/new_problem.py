"""``new-problem NAME``: a new problem folder that validates as it stands, listed last in the assignment."""

from __future__ import annotations

import argparse
import sys

from ..model import paths
from ..staff import new_problem

NAME = "new-problem"
HELP = "staff: scaffold a new problem (manifest, statement, tests, a mistake, a fair variant, reference) and list it"
DESCRIPTION = ("Write assignments/NAME/ (problem.yaml, README.md, tests/public.py and hidden.py, one mistake, one fair "
               "variant), reference/NAME.py with its solution markers and its student stub, list NAME last in "
               "assignments/assignment.yaml, and add its rows to docs/spec_coverage.md. It validates as it stands; "
               "docs/authoring.md says how to make it a real problem.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", metavar="NAME", help="the module students write, e.g. multi_query_attention")


def run(args: argparse.Namespace) -> int:
    try:
        made = new_problem.create(args.name)
    except new_problem.ScaffoldError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for path in made.written:
        print(f"wrote {path.relative_to(paths.ROOT)}")
    for note in made.notes:
        print(f"note: {note}")
    print(
        f"next: replace the example in assignments/{made.module}/ and reference/{made.module}.py (docs/authoring.md), "
        f"then `python -m autograder templates` and `python -m autograder validate -p {made.module}`"
    )
    return 0
