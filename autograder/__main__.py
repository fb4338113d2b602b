"""``python -m autograder``: see ``autograder.cli``."""

import atexit
import os
import sys

from autograder.cli import main


def _inside_ipython() -> bool:
    """``%run -m autograder`` runs this file in the notebook's kernel, which must stay alive."""
    ipython = sys.modules.get("IPython")
    return ipython is not None and getattr(ipython, "get_ipython", lambda: None)() is not None


status = main()
if not _inside_ipython():
    # Every file and worker is closed by now. The interpreter's own teardown of torch's thousands of
    # modules would add about half a second to every command, so run the exit handlers and leave.
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing left to say
            pass
    os._exit(status)
