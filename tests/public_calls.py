"""What the calls of a test file exercise, read from its source: per student function, its options.

An option is a keyword argument the call passes (``causal``, ``scale``, ``eps``, ``feature_map``, ...), ``batched`` (an
input with leading batch dimensions: three or more for a tensor argument built by ``randn``/``rand``) or ``float32``
(an input built with ``dtype=np.float32``). Names bound in the file to such builders are followed, so
``Q, K, V = randn(2, 3, 4, seed=1), ...`` then ``Call(m.f, Q, K, V)`` counts as batched.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

BUILDERS = {"randn", "rand"}


def _builder_options(node: ast.AST, names: dict[str, ast.AST], depth: int = 0) -> set[str]:
    """``batched`` and ``float32`` of an argument expression, following names bound in the file."""
    if depth > 5:
        return set()
    if isinstance(node, ast.Name) and node.id in names:
        return _builder_options(names[node.id], names, depth + 1)
    found = set()
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) in BUILDERS:
        dims = [a for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, int)]
        if len(dims) >= 3:
            found.add("batched")
        if "float32" in ast.unparse(node):
            found.add("float32")
    elif isinstance(node, ast.Call) and "float32" in ast.unparse(node):
        found.add("float32")
    for child in ast.iter_child_nodes(node) if not isinstance(node, ast.Name) else ():
        found |= _builder_options(child, names, depth + 1)
    return found


def _bindings(nodes: list[ast.AST]) -> dict[str, ast.AST]:
    """The names the statements ``nodes`` (not the functions they define) bind, to the expression each was given last."""
    names: dict[str, ast.AST] = {}

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node.value
                elif isinstance(target, ast.Tuple):
                    values = node.value.elts if isinstance(node.value, ast.Tuple) and len(node.value.elts) == len(target.elts) else None
                    for i, t in enumerate(target.elts):
                        if isinstance(t, ast.Name):
                            names[t.id] = values[i] if values else node.value
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child)

    for node in nodes:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            visit(node)
    return names


def options(path: Path, module: str) -> dict[str, set[str]]:
    """Per function of ``module`` called in ``path`` through ``Call(module.func, ...)``: the options its calls exercise
    (a name in a call is followed to what the enclosing function, or else the file, last bound it to)."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    file_names = _bindings(list(tree.body))
    found: dict[str, set[str]] = defaultdict(set)
    scopes = [(tree, file_names)] + [(f, file_names | _bindings(f.body)) for f in ast.walk(tree)
                                     if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for scope, names in scopes:
        for node in _calls_in(scope):
            target = node.args[0]
            if not (isinstance(target, ast.Attribute) and getattr(target.value, "id", None) == module):
                continue
            exercised = found[target.attr]
            exercised |= {k.arg for k in node.keywords if k.arg}
            for arg in [*node.args[1:], *(k.value for k in node.keywords)]:
                exercised |= _builder_options(arg.value if isinstance(arg, ast.Starred) else arg, names)
    return dict(found)


def _calls_in(scope: ast.AST) -> list[ast.Call]:
    """The ``Call(...)`` expressions of ``scope`` outside the functions it defines (each function is a scope of its own)."""
    calls = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Call" and node.args:
            calls.append(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child)

    for child in ast.iter_child_nodes(scope):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            visit(child)
    return calls
