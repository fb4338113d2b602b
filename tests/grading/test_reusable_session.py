"""One worker grading many submissions: nothing of one submission reaches the next."""

from autograder.grading import grader
from autograder.model import paths
from tests.helpers import reference_submission


def test_a_reused_worker_leaves_nothing_for_the_next_submission(tmp_path, assignment):
    sneaky = (paths.REFERENCE / "qkv_arithmetic.py").read_text() + (
        "\nimport os, tempfile, torch\n"
        "open(os.path.join(tempfile.gettempdir(), 'left-behind'), 'w').write('answers')\n"
        "torch.matmul = lambda *a, **k: 0  # sabotage whoever comes next\n"
        "def softmax(x, dim=-1):\n    return torch.zeros_like(x)\n"
    )
    nosy = (paths.REFERENCE / "qkv_arithmetic.py").read_text() + (
        "\nimport os, tempfile\n"
        "def softmax(x, dim=-1):\n"
        "    here = os.getcwd()  # this submission's staged folder; its parent holds every staged submission\n"
        "    if os.path.exists(os.path.join(tempfile.gettempdir(), 'left-behind')) or os.listdir(os.path.dirname(here)) != [os.path.basename(here)]:\n"
        "        return x * 0\n"
        "    e = (x - x.amax(dim=dim, keepdim=True)).exp()\n"
        "    return e / e.sum(dim=dim, keepdim=True)\n"
    )
    first = reference_submission(tmp_path / "first", replace={"qkv_arithmetic": sneaky})
    second = reference_submission(tmp_path / "second", replace={"qkv_arithmetic": nosy})
    session = grader.reusable_session(assignment)
    try:
        report_first = grader.grade(first, assignment, modules=["qkv_arithmetic"], session=session)
        report_second = grader.grade(second, assignment, modules=["qkv_arithmetic"], session=session)
        report_third = grader.grade(paths.REFERENCE, assignment, modules=["qkv_arithmetic"], session=session)
        assert session.restarts == 0
    finally:
        session.close()
    assert report_first.points < report_first.max_points
    assert report_second.points == report_second.max_points, [t.message for p in report_second.problems for t in p.tests if not t.passed]
    assert report_third.points == report_third.max_points
