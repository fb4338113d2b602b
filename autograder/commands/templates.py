"""``templates``: regenerate ``student_template/`` from ``reference/``."""

from __future__ import annotations

import argparse
import sys

from ..model import manifest, paths
from ..staff import templates

NAME = "templates"
HELP = "regenerate student_template/ from reference/"
DESCRIPTION = "Write the student stubs: the reference with solution blocks replaced by TODOs."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments."""


def run(args: argparse.Namespace) -> int:
    try:
        written = templates.generate(manifest.load().modules)
    except templates.TemplateError as exc:
        print(f"error: {exc}; nothing was written", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path.relative_to(paths.ROOT)}")
    return 0
