"""The handout's starter notebook: every problem, a check cell each, and two pictures that teach.

Built with nbformat when the handout is made. Its check cells call ``autograder.check`` (the student's
modules run out of process); the plot cells import the student's module only once its public tests pass.
"""

from __future__ import annotations

import nbformat
from nbformat import v4

from ..model.manifest import Assignment

NAME = "attention_homework.ipynb"

INTRO = """\
# {title}

Your code goes in `student_template/<module>.py`; each problem's statement is `assignments/<module>/README.md`.
Run a problem's check cell after each change: it reads your file from disk again and runs the public tests in
a separate process (an infinite loop or a crash in your code cannot stop this notebook). Every check returns
an object whose `.passed` says whether all its public tests pass. Hidden tests run on Gradescope after you submit.
"""

SETUP = """\
try:
    import autograder  # this notebook's folder holds autograder/ and student_template/
except ModuleNotFoundError:
    raise ModuleNotFoundError(
        "No module named 'autograder': this notebook must run in the handout's folder (the one holding autograder/, "
        "student_template/ and this notebook). In Jupyter, open it from that folder; on Colab, upload the folder and "
        "run %cd to it (e.g. %cd /content/attention-handout) before this cell.") from None"""

LOAD_MODULE = """\
import importlib.util


def my_module(name):
    \"\"\"Your module, read from student_template/ again (for the pictures below).\"\"\"
    spec = importlib.util.spec_from_file_location(name, f"student_template/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


try:
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
    print("pip install matplotlib to see the pictures (Colab has it)")"""

ATTENTION_PLOT = """\
# The worked example's attention weights: row i is how much token i attends to each token.
if not check_qkv_arithmetic.passed:
    print("The picture appears once every public test of qkv_arithmetic passes.")
elif plt is not None:
    import torch

    qkv = my_module("qkv_arithmetic")
    H = torch.tensor([[5.0, 1.0], [4.0, 3.0], [-2.0, 6.0]], dtype=torch.float64)
    W_q = torch.tensor([[1.0, 0.0], [2.0, 9.0]], dtype=torch.float64)
    W_k = torch.tensor([[0.0, 1.0], [6.0, 0.0]], dtype=torch.float64)
    W_v = torch.tensor([[4.0, 3.0], [9.0, 1.0]], dtype=torch.float64)
    Q, K, V = qkv.qkv(H, W_q, W_k, W_v)
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))  # the scores are in the hundreds: softmax is one-hot unless scaled down
    for ax, scale in zip(axes, (1.0, 0.01, 0.002)):
        A = qkv.attention_weights(Q, K, scale=scale).numpy()
        ax.imshow(A, vmin=0, vmax=1, cmap="viridis")
        for (i, j), a in __import__("numpy").ndenumerate(A):
            ax.text(j, i, f"{a:.2f}", ha="center", va="center", color="w" if a < 0.5 else "k")
        ax.set(title=f"scale = {scale:g}", xlabel="key token j", ylabel="query token i", xticks=[0, 1, 2], yticks=[0, 1, 2])
    plt.tight_layout()
    plt.show()"""

RFF_PLOT = """\
# The random-feature error against the number of features: it should fall like 1/sqrt(num_features).
if not check_random_features.passed:
    print("The picture appears once every public test of random_features passes.")
elif plt is not None:
    rf = my_module("random_features")
    features = [8, 32, 128, 512]
    errors = [rf.approximation_error(16, f, n_trials=4) for f in features]
    plt.figure(figsize=(5, 3.4))
    plt.loglog(features, errors, "o-", label="your approximation_error (D = 16)")
    plt.loglog(features, [errors[0] * (features[0] / f) ** 0.5 for f in features], "k--", label="slope -1/2")
    plt.xlabel("num_features")
    plt.ylabel("relative error")
    plt.legend()
    plt.show()"""

PLOTS = {"qkv_arithmetic": ATTENTION_PLOT, "random_features": RFF_PLOT}


def build(assignment: Assignment) -> nbformat.NotebookNode:
    """The notebook: intro, setup, then per problem a heading, its check cell and maybe a picture; a final check of
    all."""
    cells = [
        v4.new_markdown_cell(INTRO.format(title=assignment.title)),
        v4.new_code_cell(SETUP),
        v4.new_code_cell(LOAD_MODULE),
    ]
    for number, problem in enumerate(assignment.problems, 1):
        cells.append(v4.new_markdown_cell(
            f"## Problem {number}: {problem.title} ({problem.points:g} points)\n\n"
            f"Statement: [assignments/{problem.module}/README.md](assignments/{problem.module}/README.md). "
            f"Your code: `student_template/{problem.module}.py`."))
        cells.append(
            v4.new_code_cell(f'check_{problem.module} = autograder.check("{problem.module}")\ncheck_{problem.module}')
        )
        if problem.module in PLOTS:
            cells.append(v4.new_code_cell(PLOTS[problem.module]))
    cells.append(v4.new_markdown_cell(
        "## Before you submit: every problem at once\n\n"
        "The same public tests run from a terminal in this folder: `python -m autograder check`, or, with pytest "
        "installed, `pytest` (one pytest test per public test; `pytest --submission my_work/` for other files, "
        "`--submission=PATH` outside this folder). The handout's README.md says more."))
    cells.append(v4.new_code_cell("autograder.check()"))
    cells.append(v4.new_markdown_cell(
        "## Submit\n\n`autograder.submit()` runs every public test, lists what still fails or is not implemented, and "
        "writes `submission.zip` with exactly your modules: upload that file to Gradescope."))
    cells.append(v4.new_code_cell("autograder.submit()"))
    notebook = v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def write(assignment: Assignment, path) -> None:
    """Write the starter notebook to ``path``."""
    nbformat.write(build(assignment), str(path))
