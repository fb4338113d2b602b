"""Shared fixtures: the assignment manifest, and every problem's variants graded once per session; which tests share a
pytest-xdist worker when the suite runs on several (`make test`: ``-n 3 --dist loadfile``)."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from autograder.model import manifest
from autograder.staff import validation

# Problems whose validation waits out a per-call time limit (a quadratic-time mistake): started first.
SLOWEST = ("random_features", "causal_linear_attention")


# ---- Parallel runs: which files go to the same pytest-xdist worker ----
# A session fixture is built once per worker, so the files that read an expensive one go together; so do the emulations
# of Gradescope's container, which take turns anyway (a machine-wide lock on /autograder). Every other file is its own
# group. (xdist's loadgroup would read xdist_group marks, but with pytest 9.2 it silently stops grouping:
# pytest-dev/pytest-xdist#1386; this is loadfile with a few files joined.)
JOINED_FILES = {
    "tests/staff/test_validation.py": "graded_variants",  # every problem's variants, graded once
    "tests/test_spec_coverage.py": "graded_variants",
    "tests/gradescope/test_emulation.py": "emulation",
    "tests/commands/staff/test_emulate.py": "emulation",
}

# The longest groups, started first (in this order) so that none of them is the last to finish.
FIRST = ("tests/hostile/test_hostile.py", "emulation", "graded_variants", "tests/hostile/test_hostile_round2.py",
         "tests/gradescope/test_entry.py")


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
    """In an xdist worker, put the longest groups first (every worker sorts alike; the scheduler takes groups in order)."""
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
                futures[module] = pool.submit(validation.grade_variants, assignment.problem(module))

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
