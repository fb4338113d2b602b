"""Student code imports what the grading environment has, and nothing else: the standard library and the allowed
packages.

Installed in a module's process before the student's module runs, on both worker paths, so that a package installed only
on the student's machine (scipy on Colab) fails the self-check exactly as it fails grading. Only the student's own
imports are judged: numpy and torch import many modules of their own, and those pass untouched. Two hooks, because an
``import`` statement of a module already loaded (by torch, say) never reaches a finder: ``builtins.__import__`` sees who
imports through its ``globals``, and a finder on ``sys.meta_path`` catches ``importlib.import_module`` from their code.
"""

from __future__ import annotations

import builtins
import os
import sys

_HOOK_FRAMES = 12  # how far up a finder looks for the code that asked for the import
# Made where this module is imported (the worker's first process), not in each test's process: a set built there would
# touch every name, and each page of names it touches is a page that process copies.
STANDARD = frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names)


def refusal(name: str, allowed: tuple[str, ...]) -> ModuleNotFoundError:
    """The error student code gets for an import the grading environment cannot satisfy."""
    use = " or ".join(allowed) if allowed else "the standard library"
    exc = ModuleNotFoundError(f"`{name}` is not available where your work is graded; use {use}", name=name)
    return exc


class StudentImports:
    """Judges the imports asked for by code in ``submission``: standard library, ``allowed`` and the submission's own
    modules."""

    def __init__(self, submission: str, allowed: tuple[str, ...]) -> None:
        self.submission = os.path.join(os.path.abspath(submission), "")
        self.allowed = tuple(allowed)
        self.permitted = frozenset(self.allowed)

    def refused(self, name: str, importer: str | None) -> bool:
        """Whether code in file ``importer`` may not import ``name`` (a dotted name; its top-level package decides)."""
        top = name.partition(".")[0]
        if not importer or not importer.startswith(self.submission) or top in self.permitted or top in STANDARD:
            return False
        return not os.path.isfile(os.path.join(os.path.dirname(importer), top + ".py"))  # their own module beside it

    def find_spec(self, fullname: str, path=None, target=None):  # noqa: ANN001 - the meta path finder protocol
        frame = sys._getframe(1)
        for _ in range(_HOOK_FRAMES):
            if frame is None:
                return None
            filename = frame.f_code.co_filename
            if not (filename.startswith("<frozen") or f"{os.sep}importlib{os.sep}" in filename or filename == __file__):
                break
            frame = frame.f_back
        if frame is not None and self.refused(fullname, frame.f_code.co_filename):
            raise refusal(fullname.partition(".")[0], self.allowed)
        return None

    def install(self) -> None:
        """Judge every import from now on in this process."""
        original = builtins.__import__

        def guarded(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002 - __import__'s own signature
            if level == 0 and isinstance(globals, dict):
                importer = globals.get("__file__")
                if isinstance(importer, str) and self.refused(name, importer):
                    raise refusal(name.partition(".")[0], self.allowed)
            return original(name, globals, locals, fromlist, level)

        builtins.__import__ = guarded
        sys.meta_path.insert(0, self)


def install(submission: str, allowed) -> None:  # noqa: ANN001 - a list from the wire
    """Refuse, in this process, the imports by code in ``submission`` of anything but the standard library and
    ``allowed``."""
    if isinstance(allowed, (list, tuple)) and all(isinstance(a, str) for a in allowed):
        StudentImports(submission, tuple(allowed)).install()
