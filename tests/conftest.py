"""Shared fixtures: the assignment manifest, and every problem's variants graded once per session."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from autograder.model import manifest
from autograder.staff import validation

# Problems whose validation waits out a per-call time limit (a quadratic-time mistake): started first.
SLOWEST = ("random_features", "causal_linear_attention")


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
