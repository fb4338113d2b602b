"""Stubs are generated from the reference, stay in sync, and never leak solution code."""

import re

import pytest

from autograder.model import manifest, paths
from autograder.staff import templates


def test_committed_templates_match_the_generator():
    for module in manifest.load().modules:
        reference = (paths.REFERENCE / f"{module}.py").read_text()
        committed = (paths.TEMPLATES / f"{module}.py").read_text()
        assert committed == templates.stub_source(reference, module), f"student_template/{module}.py is stale: run `make templates`"


def test_templates_contain_no_solution_code():
    for module in manifest.load().modules:
        reference = (paths.REFERENCE / f"{module}.py").read_text()
        stub = (paths.TEMPLATES / f"{module}.py").read_text()
        assert "BEGIN SOLUTION" not in stub and "END SOLUTION" not in stub
        stub_lines = {line.strip() for line in stub.splitlines()}
        trivial = {"return", "pass", "else:", "try:", "continue", "break", ")", "]", "}"}
        leaked = [line for line in templates.solution_lines(reference) if line in stub_lines and line not in trivial]
        assert not leaked, f"{module}: solution lines in the stub: {leaked[:3]}"
        assert templates.solution_lines(reference), f"{module}: the reference has no solution blocks"


def test_stub_replaces_each_block_with_not_implemented():
    source = 'def f(x):\n    """Doc."""\n    # BEGIN SOLUTION\n    return x + 1\n    # END SOLUTION\n'
    stub = templates.stub_source(source)
    assert 'raise NotImplementedError("TODO: implement f()")' in stub
    assert "return x + 1" not in stub and '"""Doc."""' in stub


@pytest.mark.parametrize("source, problem", [
    ("    # BEGIN SOLUTION\n    x = 1\n", "never closed"),
    ("    # END SOLUTION\n", "without a"),
    ("    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n", "inside another"),
])
def test_unbalanced_markers_are_reported(source, problem):
    with pytest.raises(templates.TemplateError, match=problem):
        templates.stub_source(source, "x.py")


@pytest.mark.parametrize("source, problem", [
    ("def f(x):\n    # BEGIN SOLUTION\n    return x +\n    # END SOLUTION\n", "x.py:3: the reference does not compile: invalid syntax"),
    ("# BEGIN SOLUTION\ndef g():\n# END SOLUTION\n    return 1\n", "x.py:3: its stub .* does not compile"),
])
def test_a_reference_or_stub_that_does_not_compile_is_refused(source, problem):
    with pytest.raises(templates.TemplateError, match=problem):
        templates.stub_source(source, "x.py")


def test_one_reference_that_gives_no_stub_leaves_every_template_as_it_was(tmp_path):
    reference, out = tmp_path / "reference", tmp_path / "templates"
    reference.mkdir()
    (reference / "a.py").write_text('def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION\n')
    (reference / "b.py").write_text("def oops(:\n")
    with pytest.raises(templates.TemplateError, match="b.py:1: the reference does not compile"):
        templates.generate(["a", "b"], reference, out)
    assert not out.exists()
    with pytest.raises(templates.TemplateError, match="c.py cannot be read"):
        templates.generate(["a", "c"], reference, out)


def test_the_statement_gives_the_recurrent_state_the_shapes_of_the_stub():
    readme = (paths.ASSIGNMENTS / "causal_linear_attention" / "README.md").read_text()
    stub = (paths.TEMPLATES / "causal_linear_attention.py").read_text()
    paragraph = readme.split("- `recurrent_step(")[1].split("\n- ")[0]
    shapes = re.findall(r"`\((\.\.\., [^)`]*)\)`", paragraph)
    assert "..., C, M" in shapes and [s for s in shapes if f"({s})" not in stub] == []
