"""``python -m autograder``: see ``autograder.cli``."""

import sys

from autograder.cli import exit_now, main


def _inside_ipython() -> bool:
    """``%run -m autograder`` runs this file in the notebook's kernel, which must stay alive."""
    ipython = sys.modules.get("IPython")
    return ipython is not None and getattr(ipython, "get_ipython", lambda: None)() is not None


status = main()
if not _inside_ipython():
    exit_now(status)
