"""``python -m autograder validate``: staff check that every problem's tests grade what they should
(``staff.validate``)."""

from __future__ import annotations

import argparse

from ..model import manifest
from ..staff import validate
from .common import known_problems

NAME = "validate"
HELP = "staff: check every problem's tests grade reference, stubs, mistakes and fair variants right"
DESCRIPTION = (
    "Reference full marks, stub zero, every mistake loses points (on its own problem only), every fair "
    "alternative full marks, templates in sync, every test judged after the student's calls. One table per problem; "
    "exit 1 on any MISS."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p", "--problem", action="append", metavar="MODULE", help="validate only this problem (repeatable)"
    )
    parser.add_argument(
        "--with-zip",
        action="store_true",
        help="also build the Gradescope zip in a temp folder and `otter run` the reference (slow)",
    )


def run(args: argparse.Namespace) -> int:
    assignment = manifest.load()
    modules = known_problems(assignment, args.problem)
    if modules is None:
        return 2
    misses = 0
    for table in validate.tables(assignment, modules or None, with_zip=args.with_zip):
        misses += table.misses
        print(render(f"\n{table.title}", table.rows), flush=True)
        if table.note:
            print(table.note, flush=True)
    print(f"\n{'all as expected' if not misses else f'{misses} MISS(es)'}")
    return 1 if misses else 0


def render(title: str, rows: list[validate.Row]) -> str:
    """A fixed-width table: variant, expectation, score, OK/MISS."""
    header = ("variant", "expectation", "score", "")
    lines = [(r.variant, r.expectation, r.score, "OK" if r.ok else "MISS") for r in rows]
    widths = [max(len(x[i]) for x in [header, *lines]) for i in range(4)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    body = [fmt.format(*header).rstrip(), "  ".join("-" * w for w in widths)] + [
        fmt.format(*line).rstrip() for line in lines
    ]
    return "\n".join([title, *body])
