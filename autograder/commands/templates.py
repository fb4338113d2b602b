"""``templates``: regenerate ``student_template/`` from ``reference/``."""

from __future__ import annotations

import argparse

from ..model import manifest, paths
from ..staff import templates

NAME = "templates"
HELP = "regenerate student_template/ from reference/"
DESCRIPTION = "Write the student stubs: the reference with solution blocks replaced by TODOs."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments."""


def run(args: argparse.Namespace) -> int:
    for path in templates.generate(manifest.load().modules):
        print(f"wrote {path.relative_to(paths.ROOT)}")
    return 0
