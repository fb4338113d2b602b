"""A new problem as one folder: ``new-problem NAME`` writes a problem that validates as it stands, and lists it.

What it writes is an example to replace, small enough to read at a glance: a reference with one function between
the solution markers, a public and a hidden test, one known mistake and one fair variant, a statement, and the rows of
``docs/spec_coverage.md`` that tie them together. Its call limit is the most the time rules leave for one more problem
(``grading.time_rules.room_for_a_problem``), so ``validate`` and ``build`` accept the assignment with it.
"""

from __future__ import annotations

import importlib.util
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..grading import time_rules
from ..model import manifest, paths
from . import templates

DEFAULT_CALL_SECONDS = 5.0  # what a problem gets when the assignment sets no default and the time rules leave room


class ScaffoldError(Exception):
    """The name cannot be a new problem (not an identifier, or taken)."""


@dataclass
class Scaffold:
    """What ``create`` wrote, and what the author should know next."""

    module: str
    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _title(module: str) -> str:
    return module.replace("_", " ").capitalize()


def _prefix(module: str) -> str:
    """A rule-id prefix for docs/spec_coverage.md that no other problem uses (its rows say ``<prefix>.<rule>``)."""
    return module.replace("_", "-")


# The module docstring is the first thing students read in their stub (``templates`` keeps it and cuts only the
# solution blocks), so it speaks to them; what staff need to know about the reference is in docs/authoring.md.
REFERENCE = '''\
"""Problem {number}: {title}.

Write each function below as the statement (README.md) says: what it takes, what it returns, and what it means.
``python -m autograder check`` runs the public tests on your code."""

import torch


def example(x: torch.Tensor) -> torch.Tensor:
    """Twice ``x``, elementwise, for any shape ``(..., d)``. Replace with the problem's functions (SPEC's section)."""
    # BEGIN SOLUTION
    return 2 * x
    # END SOLUTION
'''

README = '''\
# {title}

Write `{module}.py` with:

- `example(x) -> Tensor`: twice `x`, elementwise; `x` has any shape `(..., d)`, and the result has the same.

(The statement students read: what each function takes, returns and means, as in the handout contract.)
'''

PUBLIC = '''\
"""Public tests of {module}: they ship in the students' handout and run in `python -m autograder check`."""

from autograder.testkit import Call, randn, test_case


@test_case(points=1)
def test_example_small({module}):
    Call({module}.example, randn(3, 4, seed=1)).matches_reference()
'''

HIDDEN = '''\
"""Hidden tests of {module}: run on Gradescope after the student submits; never in the handout."""

from autograder.testkit import Call, randn, test_case


@test_case(points=2, hidden=True)
def test_example_batched({module}):
    Call({module}.example, randn(2, 5, 4, seed=2)).matches_reference()
'''

MISTAKE = '''\
"""A known mistake: the reference with this file's functions in place of its own (validate: it must lose points)."""

HINT = "example multiplies by 3; it should double its input."


def example(x):
    return 3 * x
'''

FAIR = '''\
"""A different but correct implementation (validate: it must keep full marks)."""


def example(x):
    return x + x
'''

PROBLEM = '''\
title: {title}
'''

LIMIT = '''\
limits:
  # The most the time rules leave for one more problem when it was created (`python -m autograder config`): every
  # problem's worst case (4 x its limit + one last call + 4 worker restarts) must end before Gradescope's deadline.
  call_seconds: {seconds:g}
'''

COVERAGE = '''
## {module}

| rule | SPEC.md says | hidden tests that fail when only it is broken | mistakes that show it |
|---|---|---|---|
| `{prefix}.example.value` | `example(x)` returns twice `x` | `example_batched` | `example_triples` |
'''


def _call_limit(assignment: manifest.Assignment) -> tuple[float | None, str]:
    """The call limit to write (None: the assignment's default fits), and a note for the author."""
    default = _default_call_seconds()
    room = time_rules.room_for_a_problem(assignment)
    if default is not None and room >= default:
        return None, ""
    wanted = default if default is not None else DEFAULT_CALL_SECONDS
    if room > 0:
        limit = min(room, DEFAULT_CALL_SECONDS)
        return limit, (f"its call limit is {limit:g} s, the most the time rules leave for one more problem (`python -m "
                       f"autograder config`); {_room_for(assignment, wanted - limit)} to give it {wanted:g} s")
    return DEFAULT_CALL_SECONDS, ("the time rules leave no room for one more problem: `validate` and `build` will say "
                                  "which limits to change")


def _room_for(assignment: manifest.Assignment, seconds: float) -> str:
    """What makes room for ``seconds`` more of one problem's call limit: the time bound grows by (BUDGET_FACTOR + 1)
    times as much, so take that off the other problems' limits, or raise the timeout to hold it."""
    bound = seconds * (time_rules.BUDGET_FACTOR + 1)
    minutes = math.ceil((time_rules.deadline_seconds(assignment) + bound) / time_rules.DEADLINE_FRACTION / 60)
    return (f"take {seconds:g} s off the other problems' call limits together, or raise gradescope.timeout_minutes in "
            f"assignment.yaml to {minutes} (and the autograder timeout on Gradescope, whose default is 10 minutes)")


def _default_call_seconds() -> float | None:
    data = manifest.safe_load(paths.ASSIGNMENT_MANIFEST.read_text(encoding="utf-8")) or {}
    value = ((data.get("problem_defaults") or {}).get("limits") or {}).get("call_seconds")
    return float(value) if isinstance(value, (int, float)) else None


def _list_in_assignment(module: str) -> None:
    """Append ``module`` to the ``problems:`` list of assignment.yaml, keeping its comments and layout."""
    text = paths.ASSIGNMENT_MANIFEST.read_text(encoding="utf-8")
    # The block list under "problems:", comments between its items included, up to its last item.
    match = re.search(r"^problems:[ \t]*\n(?:[ \t]*#[^\n]*\n)*(?:[ \t]+-[^\n]*\n(?:[ \t]*#[^\n]*\n)*)*[ \t]+-[^\n]*\n",
                      text, re.MULTILINE)
    if match:
        indent = re.match(r"[ \t]*", match.group(0).splitlines()[-1]).group(0)
        text = text[:match.end()] + f"{indent}- {module}\n" + text[match.end():]
    else:  # a flow list or an unusual layout: rewrite the file (its comments are lost, its values kept)
        data = manifest.safe_load(text)
        data["problems"] = [*data.get("problems", []), module]
        text = yaml.safe_dump(data, sort_keys=False)
    paths.ASSIGNMENT_MANIFEST.write_text(text, encoding="utf-8")


def create(module: str) -> Scaffold:
    """Write the new problem ``module`` and list it last in the assignment."""
    why = manifest.module_name_problem(module)
    if why is None and importlib.util.find_spec(module) is not None:
        why = f"a module named {module} is installed here, and one would hide the other"
    if why is not None:
        raise ScaffoldError(f"{module!r} cannot name a problem, the module students write: {why}; choose another name, "
                            "e.g. multi_query_attention")
    assignment = manifest.load()
    folder = paths.ASSIGNMENTS / module
    taken = [p for p in (folder, paths.REFERENCE / f"{module}.py", paths.TEMPLATES / f"{module}.py") if p.exists()]
    if module in assignment.modules or taken:
        raise ScaffoldError(
            f"{module!r} exists already: {', '.join(str(p) for p in taken) or 'listed in assignment.yaml'}"
        )
    seconds, note = _call_limit(assignment)
    title = _title(module)
    reference = REFERENCE.format(title=title, number=len(assignment.problems) + 1)
    files = {
        folder / "problem.yaml": PROBLEM.format(title=title)
        + (LIMIT.format(seconds=seconds) if seconds is not None else ""),
        folder / "README.md": README.format(title=title, module=module),
        folder / "tests" / "public.py": PUBLIC.format(module=module),
        folder / "tests" / "hidden.py": HIDDEN.format(module=module),
        folder / "mistakes" / "example_triples.py": MISTAKE,
        folder / "fair" / "example_sum.py": FAIR,
        paths.REFERENCE / f"{module}.py": reference,
        paths.TEMPLATES / f"{module}.py": templates.stub_source(reference),
    }
    scaffold = Scaffold(module)
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        scaffold.written.append(path)
    _list_in_assignment(module)
    scaffold.written.append(paths.ASSIGNMENT_MANIFEST)
    coverage = paths.ROOT / "docs" / "spec_coverage.md"
    if coverage.is_file():
        with coverage.open("a", encoding="utf-8") as out:
            out.write(COVERAGE.format(module=module, prefix=_prefix(module)))
        scaffold.written.append(coverage)
    if note:
        scaffold.notes.append(note)
    return scaffold
