"""The public tests call every SPEC function with every option the hidden tests grade (docs/spec_coverage.md's table).

So a student whose public tests pass has exercised causal masking, scales, batches, float32, eps and custom feature maps
before submitting, and a forgotten causal mask no longer passes every public test.
"""

import ast
import re

import pytest

from autograder.grading import check as grading_check
from autograder.model import manifest, paths
from autograder.staff import solutions

from .public_calls import options
from .spec_table import DOC

ASSIGNMENT = manifest.load()
HEADING = "## Public tests: every function, every option graded"
# Graded by hidden tests only, on purpose: one more argmax call in the public tests spends a fourth call limit of a
# submission whose argmax_attention is stopped each time, and its problem's budget then refuses calls it has now.
HIDDEN_ONLY = {("qkv_arithmetic", "argmax_attention"): {"batched"}}
ROW = re.compile(r"^\| `(\w+)\.(\w+)` \| ([^|]*) \|$")


def table() -> dict[tuple[str, str], set[str]]:
    text = DOC.read_text(encoding="utf-8").split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in text.splitlines():
        match = ROW.match(line.strip())
        if match:
            listed = match.group(3).strip()
            rows[(match.group(1), match.group(2))] = set() if listed.startswith("(") else {o.strip() for o in listed.split(",")}
    return rows


def exercised(module: str, files) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in files:
        for func, opts in options(path, module).items():
            found.setdefault(func, set()).update(opts)
    return found


def spec_functions(module: str) -> list[str]:
    tree = ast.parse((paths.REFERENCE / f"{module}.py").read_text(encoding="utf-8"))
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


@pytest.mark.parametrize("module", ASSIGNMENT.modules)
def test_every_function_and_every_graded_option_has_a_public_test(module):
    rows = table()
    problem = ASSIGNMENT.problem(module)
    public, hidden = exercised(module, problem.public_tests), exercised(module, problem.hidden_tests)
    problems = []
    for func in spec_functions(module):
        if (module, func) not in rows:
            problems.append(f"{module}.{func}: no row in the table of {DOC.name}")
            continue
        listed = rows[(module, func)]
        if func not in public:
            problems.append(f"{module}.{func}: no public test calls it")
        problems += [f"{module}.{func}: the row lists {o!r}, which no public call exercises" for o in sorted(listed - public.get(func, set()))]
        graded = hidden.get(func, set()) - HIDDEN_ONLY.get((module, func), set())
        problems += [f"{module}.{func}: hidden tests grade {o!r}, which the row does not list" for o in sorted(graded - listed)]
    assert not problems, "\n".join(problems)


def test_the_options_reader_sees_batches_float32_and_keywords(tmp_path):
    source = tmp_path / "t.py"
    source.write_text("f32 = dict(dtype=np.float32)\nQ = randn(2, 3, 4, seed=1)\n"
                      "def test_a(m):\n    Q = randn(3, 4, seed=1, **f32)\n    Call(m.f, Q, causal=True)\n"
                      "def test_b(m):\n    Call(m.g, Q, Named('torch.float32'))\n    Call(m.h, randn(3, 4, seed=2))\n")
    assert options(source, "m") == {"f": {"float32", "causal"}, "g": {"batched", "float32"}, "h": set()}


def test_a_forgotten_causal_mask_fails_a_public_test(tmp_path):
    mistake = paths.ASSIGNMENTS / "qkv_arithmetic" / "mistakes" / "softmax_attention_drops_causal.py"
    source = solutions.compose("qkv_arithmetic", mistake.read_text(encoding="utf-8"), mistake.name)
    (tmp_path / "qkv_arithmetic.py").write_text(source)
    report = grading_check.run(tmp_path, ASSIGNMENT, ["qkv_arithmetic"])
    failed = [t.name for t in report.problems[0].tests if not t.passed]
    assert failed == ["causal_batched_attention_in_single_precision"], failed
