"""``python -m autograder``: the command line, assembled from one module per command (``commands/``)."""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import sys
from typing import NoReturn

from . import settings
from .commands import COMMANDS

UNIX_ONLY = ("fcntl", "termios", "resource", "grp", "pwd")
STAFF_PACKAGES = ("staff", "gradescope")  # not in the students' handout (nor are the staff's commands)
SANDBOXED = ("check", "submit", "grade", "grade_all", "validate")  # commands that start a worker: probe early


def _staff_only(name: str):
    """A command the students' handout leaves out: explain instead of failing on import."""

    def run(args: argparse.Namespace) -> int:
        print(f"error: `{name}` is a staff command; the handout does not include it", file=sys.stderr)
        return 2

    return run


def _unavailable(name: str, missing: str):
    """A command that needs a module this Python lacks (a Unix-only one, on Windows say)."""

    def run(args: argparse.Namespace) -> int:
        print(
            f"error: `{name}` needs the {missing} module, which this Python does not have (it runs on Linux)",
            file=sys.stderr,
        )
        return 2

    return run


def _not_installed(name: str, missing: str):
    """A command that needs a package this Python lacks (a Python other than the project's, say): name it and the
    fix."""

    def run(args: argparse.Namespace) -> int:
        print(
            f"error: `{name}` needs the package {missing}, which this Python ({sys.executable}) does not have: "
            f"install it there (`pip install {missing}`; the README lists every dependency), or run a Python that has "
            f"them (staff: `.venv/bin/python -m autograder {name} ...`, the .venv that `make autograder` makes)",
            file=sys.stderr,
        )
        return 2

    return run


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with ``only`` (a module of ``commands``), that command alone (importing the others costs
    time)."""
    parser = argparse.ArgumentParser(prog=_program(), description="Grade the attention homework.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name in COMMANDS if only is None else (only,):
        path = f"{__package__}.commands.{module_name}"
        name = module_name.replace("_", "-")
        try:
            command = importlib.import_module(path)
        except ModuleNotFoundError as exc:
            if exc.name in UNIX_ONLY:  # e.g. emulate on Windows: say so when asked, keep the other commands working
                p = sub.add_parser(
                    name, help=f"(not on this machine: needs {exc.name}, which this Python lacks)", add_help=False
                )
                p.set_defaults(run=_unavailable(name, exc.name), any_arguments=True)
                continue
            if not _left_out(exc.name, path):
                missing = (exc.name or "").partition(".")[0]
                if not missing or missing == __package__:
                    raise  # a module of the harness itself is missing: a broken install, not this Python's lack
                p = sub.add_parser(name, help=f"(not in this Python: needs {missing})", add_help=False)
                p.set_defaults(run=_not_installed(name, missing), any_arguments=True)
                continue
            p = sub.add_parser(
                name, add_help=False
            )  # no help=: understood (to explain), but --help lists only what works here
            p.set_defaults(run=_staff_only(name), any_arguments=True)
            continue
        p = sub.add_parser(command.NAME, help=command.HELP, description=command.DESCRIPTION)
        command.add_arguments(p)
        p.set_defaults(run=command.run)
    return parser


def _program() -> str:
    """How this command line was started, for its usage lines: the installed ``autograder`` or ``python -m
    autograder``."""
    return "autograder" if os.path.basename(sys.argv[0]) == "autograder" else "python -m autograder"


def _left_out(missing: str | None, path: str) -> bool:
    """Whether ``missing`` is a package the students' handout leaves out (the staff commands and the layers they
    need)."""
    return missing is not None and (path.startswith(f"{missing}.") or path == missing
                                    or missing.startswith(tuple(f"{__package__}.{p}" for p in STAFF_PACKAGES)))


def _command_named(word: str) -> str | None:
    """The module of ``commands`` that ``word`` (as typed on the command line) names, if any."""
    return {m.replace("_", "-"): m for m in COMMANDS}.get(word)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    settings.one_blas_thread()
    named = _command_named(argv[0]) if argv else None
    if named in SANDBOXED:
        from .sandbox import policy

        policy.detect_soon()  # the probes run in their own processes while this one imports the command
    from .model.manifest import ManifestError
    from .sandbox.errors import SandboxFault, SandboxUnavailable

    parser = build_parser(only=named)
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "any_arguments", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return args.run(args)
    except SandboxUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ManifestError as exc:
        print(f"error: {exc.label}: {exc}", file=sys.stderr)
        return 2
    except SandboxFault as exc:
        print(f"error: the sandbox failed on this machine (a fault of the grader or the machine, not of the code "
              f"graded), so nothing was graded: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def exit_now(status: int) -> NoReturn:
    """Leave with ``status`` once the exit handlers ran. Every file and worker is closed by now; the interpreter's own
    teardown of torch's thousands of modules would add about half a second to every command."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing left to say
            pass
    os._exit(status)


def console() -> NoReturn:
    """The ``autograder`` command an install puts on PATH (``pyproject.toml``): the same as ``python -m autograder``."""
    exit_now(main())
