"""Shared fixtures: the assignment manifest, and every problem's variants graded once per session; which tests share a
pytest-xdist worker when the suite runs on several (`make test`: ``-n 3 --dist loadfile``); which tests start grading
(the ``grading`` mark, left out by ``--no-grading``: `make test-fast`)."""

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autograder.model import manifest
from autograder.staff import validate

# Problems whose validation waits out a per-call time limit (a quadratic-time mistake): started first.
SLOWEST = ("random_features", "causal_linear_attention")


# ---- Parallel runs: which files go to the same pytest-xdist worker ----
# A session fixture is built once per worker, so the files that read an expensive one go together; so do the emulations
# of Gradescope's container, which take turns anyway (a machine-wide lock on /autograder). Every other file is its own
# group. (xdist's loadgroup would read xdist_group marks, but with pytest 9.2 it silently stops grouping:
# pytest-dev/pytest-xdist#1386; this is loadfile with a few files joined.)
JOINED_FILES = {
    "tests/staff/test_validate.py": "graded_variants",  # every problem's variants, graded once
    "tests/test_spec_coverage.py": "graded_variants",
    "tests/gradescope/test_emulate.py": "emulation",
    "tests/commands/test_emulate.py": "emulation",
}

# The longest groups, started first (in this order) so that none of them is the last to finish.
FIRST = ("tests/hostile/test_hostile.py", "emulation", "graded_variants", "tests/hostile/test_isolation.py",
         "tests/gradescope/test_entry.py", "tests/hostile/test_cost.py")


# ---- Two tiers: the files with a test that starts grading ----
# Grading means a sandbox worker, a command that grades (run as a subprocess), otter's runner or the zip's entry point.
# `--no-grading` (`make test-fast`) leaves these files out and makes a test of any other file that starts grading fail,
# naming what it started, so a new test that grades is added here rather than slowing the fast tier down unseen.
GRADING_FILES = {
    "tests/commands/test_grade.py",
    "tests/commands/test_grade_all.py",
    "tests/commands/test_validate.py",
    "tests/commands/test_check.py",
    "tests/commands/test_submit.py",
    "tests/gradescope/test_build.py",
    "tests/gradescope/test_emulate.py",
    "tests/gradescope/test_entry.py",
    "tests/grading/test_grader.py",
    "tests/grading/test_submit.py",
    "tests/grading/test_observers.py",
    "tests/grading/test_oversubscribed.py",
    "tests/grading/test_reusable_session.py",
    "tests/grading/test_check.py",
    "tests/grading/test_time_rules.py",
    "tests/hostile/test_cost.py",
    "tests/hostile/test_hostile.py",
    "tests/hostile/test_isolation.py",
    "tests/hostile/test_shift_matrix_cheats.py",
    "tests/sandbox/test_portable.py",
    "tests/sandbox/test_session.py",
    "tests/sandbox/test_zygote.py",
    "tests/staff/test_grade_all.py",
    "tests/staff/test_handout.py",
    "tests/staff/test_new_problem.py",
    "tests/staff/test_starter_notebook.py",
    "tests/staff/test_student_install.py",
    "tests/staff/test_validate.py",
    "tests/test_notebook.py",
    "tests/test_public_coverage.py",
    "tests/test_spec_coverage.py",
    "tests/testkit/test_calls.py",
}

# A command line that grades (also inside a shell command such as ``bash -c "... python -m autograder check"``).
GRADING_COMMAND = re.compile(r"(?:-m |\b)autograder (check|submit|grade|grade-all|validate|emulate)\b|-m otter run\b")
ENTRY_POINTS = ("portable_main.py", "run_grading.py", "run_autograder")


def pytest_addoption(parser):
    parser.addoption("--no-grading", action="store_true",
                     help="only the tests that start no grading (the files outside tests/conftest.py's GRADING_FILES)")


def pytest_configure(config):
    config.addinivalue_line("markers", "grading: its file has a test that starts grading (tests/conftest.py: GRADING_FILES)")
    if config.getoption("no_grading"):
        _refuse_grading()


def starts_grading(args, env) -> str | None:
    """What a process started with ``args`` and ``env`` grades, in words, or None when it starts no grading."""
    words = [str(a) for a in ([args] if isinstance(args, (str, bytes, Path)) else args)]
    if env is not None and "AUTOGRADER_WORKER" in env:
        return "a sandbox worker"
    if any(Path(word).name in ENTRY_POINTS for word in words):
        return f"a grading entry point ({' '.join(words)})"
    command = GRADING_COMMAND.search(" ".join(words))
    if command is not None:
        return f"`{command.group(0)}`"
    return None


def _refuse_grading() -> None:
    """Make every process this session starts (fixtures, threads and forks included) fail when it would start grading,
    naming the test and the file to add to ``GRADING_FILES``."""
    popen_init = subprocess.Popen.__init__
    os.environ["AUTOGRADER_ZYGOTE"] = "0"  # every worker then starts as a process, which the guard below sees

    def guarded(self, args, *pos, **kw):
        started = starts_grading(args, kw.get("env"))
        if started is not None:
            test = os.environ.get("PYTEST_CURRENT_TEST", "a test").split(" ")[0]
            raise RuntimeError(f"{test} started {started} under --no-grading: add its file to GRADING_FILES in "
                               "tests/conftest.py (the `make test` tier)")
        popen_init(self, args, *pos, **kw)

    subprocess.Popen.__init__ = guarded


def file_group(nodeid: str) -> str:
    """The worker group of a test: its file's, or the group its file joins."""
    path = nodeid.split("::")[0]
    return JOINED_FILES.get(path, path)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile``, with the files of ``JOINED_FILES`` sent to one worker."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class JoinedFileScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return file_group(nodeid)

    config.option.loadscopereorder = False  # the collection's order (below), not the groups with most tests first
    return JoinedFileScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark the tests of ``GRADING_FILES`` and, under ``--no-grading``, leave them out; in an xdist worker, put the longest
    groups first (every worker sorts alike; the scheduler takes groups in order)."""
    grading = [item for item in items if item.nodeid.split("::")[0] in GRADING_FILES]
    for item in grading:
        item.add_marker(pytest.mark.grading)
    if config.getoption("no_grading") and grading:
        config.hook.pytest_deselected(items=grading)
        items[:] = [item for item in items if item.nodeid.split("::")[0] not in GRADING_FILES]
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: FIRST.index(g) if (g := file_group(item.nodeid)) in FIRST else len(FIRST))


@pytest.fixture(scope="session", autouse=True)
def _basetemp(tmp_path_factory):
    """Make the session's temporary folder before any fixture asks for one from several threads: pytest's first
    ``getbasetemp`` is not thread-safe (a second thread can remove the folder the first one just made)."""
    tmp_path_factory.getbasetemp()


@pytest.fixture(scope="session")
def assignment():
    return manifest.load()


def modules_to_grade(session, assignment):
    """The problems whose variants this session's selected tests will ask for (all of them for a test not tied to one)."""
    needed = set()
    for item in session.items:
        if "graded_variants" not in getattr(item, "fixturenames", ()):
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        module = params.get("module") or getattr(params.get("problem"), "module", None)
        if module is None:
            return set(assignment.modules)
        needed.add(module)
    return needed


@pytest.fixture(scope="session")
def graded_variants(assignment, request):
    """``outcomes(problem)``: the reference, stub, mistakes and fair variants of a problem, graded once per session.

    Validation is the slowest part of the suite and the tests that read it share one run. The first
    request starts grading every problem the selected tests need, two at a time (each has its own
    worker process and the grader mostly waits on them), so the long waits of two problems overlap.
    """
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="validation")
    futures = {}

    def start(modules):
        for module in sorted(modules, key=lambda m: (m not in SLOWEST, m)):
            if module not in futures:
                futures[module] = pool.submit(validate.grade_variants, assignment.problem(module))

    def outcomes(problem):
        if not futures:
            start(modules_to_grade(request.session, assignment))
        start([problem.module])
        return futures[problem.module].result()

    yield outcomes
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="session")
def built_handout(tmp_path_factory):
    """``(zip, extracted root)`` of the students' handout, built once per session; tests that change files copy the root."""
    import subprocess
    import sys
    import zipfile

    from autograder.model import paths
    from autograder.staff.handout import TOP

    tmp = tmp_path_factory.mktemp("built-handout")
    out = tmp / "handout.zip"
    proc = subprocess.run([sys.executable, "-m", "autograder", "handout", "--out", str(out)], cwd=paths.ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with zipfile.ZipFile(out) as zf:
        zf.extractall(tmp)
    return out, tmp / TOP


@pytest.fixture
def killed_run_tmp(monkeypatch):
    """A temporary folder of this test's own for a grader it kills with ``kill -9`` (pass it as ``TMPDIR``): the
    sandbox folders such a run leaves are this test's, and no other test's grader, sweeping the shared ``/tmp`` for a
    killed run's leftovers, removes them first or reports them. ``remove_dead_boxes`` in this test looks there only."""
    import tempfile

    from autograder.sandbox import runtime
    from autograder.sandbox.worker.cleanup import remove_tree

    folder = Path(tempfile.mkdtemp(prefix="autograder-test-killed-", dir="/tmp"))
    folder.chmod(0o755)  # a root grader's sandbox user traverses it to reach its box
    monkeypatch.setattr(runtime.tempfile, "tempdir", str(folder))
    monkeypatch.setattr(runtime, "TMP_FOLDERS", ())
    yield folder
    remove_tree(str(folder))
