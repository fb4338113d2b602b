"""The handout's ``conftest.py``: ``pytest`` runs the public tests through the self-check, one pytest item per test.

Copied to the handout's top folder by ``staff.handout``. The test files hold ``@test_case`` functions
that take a module proxy, which pytest cannot call itself; this plugin collects each public test file as one
problem and each of its test cases as one item, runs the problem once through the same grading run as
``python -m autograder check`` (the sandbox, the time limits, the recorded expected values) and reports each item
as that run graded it. Every problem collected is graded in that one run, at the first item (one worker, one torch
import, as ``check`` does). ``--submission DIR`` or ``--submission=DIR`` (a folder or a zip) checks other files than
``student_template/``; what the student's code printed is shown at the end, as ``check`` shows it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

_GRADED = pytest.StashKey[object]()  # the self-check's report, once the first item asked for it


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--submission", default=None, metavar="DIR",
                     help="the folder or zip of your modules (default: student_template/)")


def pytest_configure(config: pytest.Config) -> None:
    from autograder import settings

    settings.one_blas_thread()  # before the grading run imports numpy
    asked = config.getoption("--submission")
    if asked and not Path(asked).exists():
        raise pytest.UsageError(
            f"--submission {asked}: no such folder or zip; pass the folder (or zip) holding your .py files"
        )


# pytest's TerminalReporter
def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:  # noqa: ANN001
    """What the student's code printed, per problem, as ``check`` shows it."""
    report = config.stash.get(_GRADED, None)
    if report is None:
        return
    from autograder.reports import printed
    from autograder.reports.terminal import safe

    for problem in report.problems:
        if problem.output.strip():
            terminalreporter.write_sep("-", f"printed by your code: {problem.module}")
            terminalreporter.write_line(safe(printed.shown(problem.output)))


def _public_files() -> dict[Path, str]:
    """Each public test file of the assignment, and its problem's module."""
    from autograder.model import manifest

    return {
        Path(path).resolve(): problem.module for problem in manifest.load().problems for path in problem.public_tests
    }


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    # Public test files are not named test_*.py: collected here whether named on the command line or found in a folder.
    module = _public_files().get(Path(file_path).resolve())
    return PublicTests.from_parent(parent, path=file_path, module=module) if module else None


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    # A public test file named on the command line: the plugin's collector above answers, pytest's own must not.
    return _Nothing.from_parent(parent, path=module_path) if Path(module_path).resolve() in _public_files() else None


class _Nothing(pytest.File):
    def collect(self):
        return []


class PublicTests(pytest.File):
    """One problem's public test file: an item per test case, graded together in one self-check run."""

    def __init__(self, *, module: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.module = module

    def collect(self):
        from autograder.grading.runner import load_test_file

        for spec in load_test_file(Path(self.path), hidden=False):
            yield PublicTest.from_parent(self, name=spec.name)

    def graded(self):
        """This problem as the self-check graded it: every problem collected is graded in one run, at the first item."""
        report = self.config.stash.get(_GRADED, None)
        if report is None:
            from autograder.grading import check as grading_check
            from autograder.model import paths

            collected = [item.parent.module for item in self.session.items if isinstance(item.parent, PublicTests)]
            asked = self.config.getoption("--submission")
            folder = Path(asked) if asked else paths.TEMPLATES
            report = grading_check.run(folder, modules=list(dict.fromkeys(collected)))
            self.config.stash[_GRADED] = report
        return next(p for p in report.problems if p.module == self.module)


class PublicTestFailed(Exception):
    """A public test failed: its message is what the check shows."""


class PublicTest(pytest.Item):
    """One public test, as the self-check graded it."""

    def runtest(self) -> None:
        problem = self.parent.graded()
        result = next((t for t in problem.tests if t.name == self.name), None)
        if result is None:
            raise PublicTestFailed(f"the check did not run {self.name}")
        if not result.passed:
            from autograder.reports.terminal import safe

            raise PublicTestFailed(safe(result.message or problem.status))

    def repr_failure(self, excinfo, style=None) -> str:  # noqa: ANN001 - pytest's hook signature
        if isinstance(excinfo.value, PublicTestFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.parent.module}: {self.name}"
