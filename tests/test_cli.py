"""The command line is assembled from ``autograder/commands``: every command listed there is reachable."""

import pytest

from autograder import cli
from autograder.commands import COMMANDS


@pytest.mark.parametrize("module_name", COMMANDS)
def test_every_command_module_is_a_subcommand(module_name, capsys):
    name = module_name.replace("_", "-")
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args([name, "--help"])
    assert exit_info.value.code == 0
    assert "usage: python -m autograder " + name in capsys.readouterr().out


def _command_lacking(monkeypatch, command: str, missing: str) -> None:
    """Make importing ``commands.<command>`` fail as if module ``missing`` were not installed."""
    import importlib

    real = importlib.import_module

    def lacking(name, *args):
        if name.endswith(f".commands.{command}"):
            raise ModuleNotFoundError(f"No module named {missing!r}", name=missing)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", lacking)


def test_a_missing_staff_command_explains_itself(monkeypatch, capsys):
    _command_lacking(monkeypatch, "validate", "autograder.commands.validate")
    assert cli.main(["validate", "-p", "x"]) == 2
    assert "staff command" in capsys.readouterr().err
    help_text = cli.build_parser().format_help()
    assert "check" in help_text and "validate" not in help_text  # --help lists only what works here


def test_a_command_needing_a_unix_only_module_is_explained(monkeypatch, capsys):
    _command_lacking(monkeypatch, "emulate", "fcntl")
    assert cli.main(["emulate", "--zip", "x"]) == 2
    assert "needs the fcntl module" in capsys.readouterr().err


def test_a_command_needing_a_package_this_python_lacks_names_it_and_the_fix(monkeypatch, capsys):
    _command_lacking(monkeypatch, "handout", "nbformat")
    assert cli.main(["handout", "--out", "x.zip"]) == 2
    err = capsys.readouterr().err
    assert "needs the package nbformat" in err and "make autograder" in err and "Traceback" not in err
    assert "needs nbformat" in cli.build_parser().format_help()  # the other commands still work, and --help says why


def test_a_missing_module_of_the_harness_itself_is_not_blamed_on_this_python(monkeypatch):
    _command_lacking(monkeypatch, "handout", "autograder.staff.gone")
    monkeypatch.setattr(cli, "STAFF_PACKAGES", ())  # as in a full checkout, where staff modules must be present
    with pytest.raises(ModuleNotFoundError):
        cli.build_parser()


def _modules_after(argv: list[str]) -> set[str]:
    """The ``autograder.commands`` modules a fresh process has imported after ``cli.main(argv)``."""
    import subprocess
    import sys

    code = ("import contextlib, io, sys; from autograder import cli\n"
            f"with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
            f"    try: cli.main({argv!r})\n"
            "    except SystemExit: pass\n"
            "print(' '.join(m for m in sys.modules if m.startswith('autograder.commands.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_only_the_command_named_is_imported():
    assert _modules_after(["check", "--help"]) == {"autograder.commands.check", "autograder.commands.common"}
    assert "autograder.commands.check" not in _modules_after(["grade", "--help"])
    # a misspelt command still gets the list of every command
    assert "autograder.commands.grade" in _modules_after(["chek"])


def test_a_sandbox_that_fails_is_the_machine_s_fault_in_plain_words(monkeypatch, capsys):
    # A worker that does not start (here: one whose Python cannot import the worker's own modules) is no student's fault.
    from autograder.grading import check as grading_check
    from autograder.sandbox.errors import SandboxFault

    def fails(*args, **kwargs):
        raise SandboxFault("the grading worker did not start (EOFError); output:\nModuleNotFoundError: No module named 'numpy'")

    monkeypatch.setattr(grading_check, "run", fails)
    assert cli.main(["check", "-p", "qkv_arithmetic"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("error: the sandbox failed on this machine") and "not of the code graded" in err
    assert "No module named 'numpy'" in err and "Traceback" not in err
