"""docs/contract.md carries the handout contract: SPEC.md's every quoted name, signature and formula, its points.

SPEC.md (the source of truth) lives outside the repository, in ``shared/`` beside the checkout; where it is there, the
contract must quote everything SPEC.md quotes. Everywhere, the contract's signatures must be the reference's and its
points and modules the assignment's.
"""

import ast
import re

import pytest

from autograder.model import manifest, paths

CONTRACT = paths.ROOT / "docs" / "contract.md"
SPEC = paths.ROOT.parent / "shared" / "SPEC.md"

SIGNATURE = re.compile(r"^- `(\w+)\(([^`]*?)\)(?: -> [^`]*)?`", re.MULTILINE)
SECTION = re.compile(r"^## \d+\. `(\w+)\.py`", re.MULTILINE)
POINTS_ROW = re.compile(r"^\| [^|]+ \| `(\w+)\.py` \| (\d+) \|$", re.MULTILINE)


def quoted(text: str) -> set[str]:
    """The inline code spans of a Markdown text, with runs of white space made one space."""
    return {" ".join(span.split()) for span in re.findall(r"`([^`]+)`", text)}


def signatures(text: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """``{module: {function: (parameter or parameter=default, ...)}}`` of the contract's problem sections."""
    found: dict[str, dict[str, tuple[str, ...]]] = {}
    sections = list(SECTION.finditer(text))
    for section, after in zip(sections, [*sections[1:], None], strict=True):
        body = text[section.end():after.start() if after else len(text)]
        body = body.split("\n## ", 1)[0]
        found[section.group(1)] = {m.group(1): tuple(p.replace(" ", "") for p in m.group(2).split(",") if p.strip())
                                   for m in SIGNATURE.finditer(body)}
    return found


def reference_signatures(module: str) -> dict[str, tuple[str, ...]]:
    """The public functions of ``reference/<module>.py`` as the contract writes them (``name`` or ``name=default``)."""
    tree = ast.parse((paths.REFERENCE / f"{module}.py").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            args = node.args.args
            defaults = [None] * (len(args) - len(node.args.defaults)) + list(node.args.defaults)
            pairs = zip(args, defaults, strict=True)
            found[node.name] = tuple(a.arg if d is None else f"{a.arg}={_literal(d)}" for a, d in pairs)
    return found


def _literal(node: ast.expr) -> str:
    """A default as the contract writes it (``1e-6``, not Python's ``1e-06``)."""
    text = ast.unparse(node)
    return re.sub(r"e-0(\d)", r"e-\1", text)


CONTRACT_TEXT = CONTRACT.read_text(encoding="utf-8")
ASSIGNMENT = manifest.load()


def test_the_contract_quotes_everything_spec_quotes():
    if not SPEC.exists():
        pytest.skip(f"no {SPEC} beside the checkout (the contract is checked against reference/ and the manifests)")
    missing = sorted(quoted(SPEC.read_text(encoding="utf-8")) - quoted(CONTRACT_TEXT))
    assert not missing, f"docs/contract.md does not quote these spans of {SPEC}: {missing}"


def test_the_contract_has_spec_signatures_and_points():
    if not SPEC.exists():
        pytest.skip(f"no {SPEC} beside the checkout")
    spec = SPEC.read_text(encoding="utf-8")
    assert signatures(CONTRACT_TEXT) == signatures(spec)
    assert sorted(POINTS_ROW.findall(CONTRACT_TEXT)) == sorted(POINTS_ROW.findall(spec))


def test_every_module_of_the_assignment_is_a_section_with_its_points():
    rows = {module: float(points) for module, points in POINTS_ROW.findall(CONTRACT_TEXT)}
    assert rows == {p.module: p.points for p in ASSIGNMENT.problems}
    assert list(signatures(CONTRACT_TEXT)) == ASSIGNMENT.modules


@pytest.mark.parametrize("module", ASSIGNMENT.modules)
def test_signatures_are_the_references(module):
    assert signatures(CONTRACT_TEXT)[module] == reference_signatures(module)


def doc_links():
    """``(doc, target)`` for every relative link of README.md and docs/*.md (an anchor of its own page left out)."""
    for doc in [paths.ROOT / "README.md", *sorted((paths.ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)", doc.read_text(encoding="utf-8")):
            if "://" not in target:
                yield doc, target


def test_no_doc_links_outside_the_repository():
    outside = [f"{doc.relative_to(paths.ROOT)}: {target}" for doc, target in doc_links()
               if not (doc.parent / target).resolve().is_relative_to(paths.ROOT)]
    assert not outside, f"links that leave the repository (a fresh clone has nothing there): {outside}"


def test_doc_links_lead_to_files_of_the_repository():
    broken = [f"{doc.relative_to(paths.ROOT)}: {target}" for doc, target in doc_links() if not (doc.parent / target).exists()]
    assert not broken, f"links to files that do not exist: {broken}"
