"""The handout's starter notebook, run with a real Jupyter kernel in the extracted handout: on the stubs and on the reference.

The kernel must survive what the student's code does (``os._exit`` here; an infinite loop in test_notebook.py) and
``%run -m autograder check``.
"""

import shutil

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.model import paths
from autograder.staff import starter_notebook
from autograder.staff.handout import TOP


@pytest.fixture(scope="module")
def handout_root(built_handout, tmp_path_factory):
    root = tmp_path_factory.mktemp("notebook") / TOP
    shutil.copytree(built_handout[1], root)
    return root


def execute(root, extra_cells=()):
    """Run the starter notebook (plus ``extra_cells``) in ``root``; return its cells' outputs as one text, and the images."""
    nb = nbformat.read(root / starter_notebook.NAME, as_version=4)
    nb.cells += [nbformat.v4.new_code_cell(source) for source in extra_cells]
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(root)}}).execute()
    texts, images = [], 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", "".join(output.get("traceback", []))[-3000:]
            data = output.get("data", {})
            texts += [output.get("text", ""), data.get("text/html", ""), data.get("text/plain", "")]
            images += "image/png" in data
    return "\n".join(texts), images


@pytest.fixture
def clean_env(monkeypatch):
    for name in ("AUTOGRADER_ROOT", "PYTHONPATH", "AUTOGRADER_PORTABLE"):
        monkeypatch.delenv(name, raising=False)


def test_on_the_stubs_every_check_fails_and_says_why(handout_root, clean_env, assignment):
    text, images = execute(handout_root, ["%run -m autograder check", "print('kernel alive after %run')"])
    assert "kernel alive after %run" in text
    assert images == 0 and "The picture appears once every public test of qkv_arithmetic passes." in text
    for problem in assignment.problems:
        assert f"{problem.module} — {problem.title}" in text
    assert "is not implemented yet" in text and "<table>" in text and "All " not in text.replace("All 35", "")


def test_on_the_reference_every_check_passes_and_the_pictures_show(handout_root, clean_env, assignment, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(handout_root, root)
    for module in assignment.modules:
        shutil.copy(paths.REFERENCE / f"{module}.py", root / "student_template" / f"{module}.py")
    hostile = root / "hostile"
    hostile.mkdir()
    (hostile / "receptive_field.py").write_text("import os\n\ndef receptive_field_size(n_layers, n_heads, seq_len=None):\n"
                                                "    os._exit(1)\n")  # an infinite loop: tests/test_notebook.py
    text, images = execute(root, ['r = autograder.check("receptive_field", folder="hostile")\nprint("survived", r.passed)'])
    assert images == 2
    # one per problem, all six at once, then submit's (the hostile check below prints, shows no table)
    tables = text.split("<table>")[1:]
    assert len(tables) == len(assignment.problems) + 2 and all("public tests pass." in t and "failed" not in t for t in tables), text[-3000:]
    assert "submission.zip with all 6 modules. Upload it to Gradescope" in text and (root / "submission.zip").is_file()
    assert "survived False" in text
