"""The shape docs/architecture.md describes: the layers hold (lint-imports), few top-level modules, test files see testkit only."""

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

from autograder.model import paths

TOP_LEVEL_ALLOWED = 6  # modules at the top of autograder/ besides __init__, __main__ and cli


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(lint), "--no-cache"], cwd=paths.ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_the_package_is_made_of_layers_not_loose_modules():
    loose = sorted(p.stem for p in paths.PACKAGE_DIR.glob("*.py") if p.stem not in ("__init__", "__main__", "cli"))
    assert len(loose) <= TOP_LEVEL_ALLOWED, loose
    assert all((folder / "__init__.py").is_file() for folder in paths.PACKAGE_DIR.rglob("*") if folder.is_dir() and folder.name != "__pycache__")


def autograder_imports(path: Path) -> set[str]:
    """The autograder modules a file imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "autograder":
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "autograder"}
    return found


def test_test_files_import_only_the_testkit():
    files = sorted(paths.ASSIGNMENTS.glob("*/tests/*.py"))
    assert files
    strays = {str(f.relative_to(paths.ROOT)): sorted(autograder_imports(f) - {"autograder.testkit"}) for f in files}
    assert not {f: m for f, m in strays.items() if m}, strays


def test_the_handout_contract_forbids_every_module_the_handout_leaves_out():
    from autograder.staff import handout

    pyproject = tomllib.loads((paths.ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = [c for c in pyproject["tool"]["importlinter"]["contracts"] if "handout ships" in c["name"]]
    assert set(contract["forbidden_modules"]) == {f"autograder.{m}" for m in handout.LEFT_OUT}
    assert {f"autograder.commands.{c}" for c in paths.STUDENT_COMMANDS} <= set(contract["source_modules"])


SANDBOX_PUBLIC_MODULES = {"errors", "policy", "boundary", "environment", "cgroupfs", "worker.wire"}


def test_every_sandbox_module_is_public_or_kept_inside_by_the_contract():
    pyproject = tomllib.loads((paths.ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [contract] = [c for c in pyproject["tool"]["importlinter"]["contracts"] if "public face" in c["name"]]
    sandbox = paths.PACKAGE_DIR / "sandbox"
    modules = {".".join(p.relative_to(sandbox).with_suffix("").parts) for p in sandbox.rglob("*.py") if p.stem != "__init__"}
    internal = {m.removeprefix("autograder.sandbox.") for m in contract["forbidden_modules"]}
    assert modules - SANDBOX_PUBLIC_MODULES == internal
    assert SANDBOX_PUBLIC_MODULES <= modules


def test_the_sandbox_s_public_names_resolve():
    import autograder.sandbox as sandbox

    missing = [name for name in sandbox.__all__ if getattr(sandbox, name, None) is None]
    assert not missing, missing
