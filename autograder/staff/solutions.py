"""The trusted implementations: the reference, its known mistakes and its fair alternatives.

A mistake or a fair alternative is a small file under ``assignments/<module>/mistakes/`` or
``.../fair/`` that redefines some functions of the reference; the module it stands for is
the reference source followed by that file. They run only where expected values are recorded
(``recording``, staff code); the Gradescope zip and the handout carry none of them.
"""

from __future__ import annotations

import functools
import re
import types
from dataclasses import dataclass
from pathlib import Path

from ..model import paths

_FUTURE = re.compile(r"^from __future__ import .*$", re.MULTILINE)
SHARED = "_shared.py"


@dataclass(frozen=True)
class Variant:
    """One mistake or fair alternative of a problem's reference."""

    module: str
    name: str
    path: Path
    hint: str

    def source(self) -> str:
        """The complete module: the reference followed by this variant's overrides."""
        return compose(self.module, _override(self.path), self.name)

    def load(self) -> types.ModuleType:
        """This variant as an importable module object (in the grader, trusted)."""
        return _load_variant(self.module, str(self.path))


def reference_path(module: str) -> Path:
    """``reference/<module>.py``."""
    return paths.REFERENCE / f"{module}.py"


def has_reference(module: str) -> bool:
    """Whether the reference source is here (staff checkout) or not (students' handout)."""
    return reference_path(module).is_file()


def compose(module: str, override: str, label: str) -> str:
    """Reference source plus ``override`` (with its ``__future__`` lines moved to the top)."""
    base = reference_path(module).read_text(encoding="utf-8")
    futures = sorted(set(_FUTURE.findall(base) + _FUTURE.findall(override)))
    body = _FUTURE.sub("", base) + f"\n\n# ---- variant: {label} ----\n" + _FUTURE.sub("", override)
    return "\n".join(futures) + ("\n" if futures else "") + body


def _exec_module(name: str, source: str, filename: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)  # noqa: S102 - staff code only
    return module


@functools.cache
def reference(module: str) -> types.ModuleType:
    """The reference module, imported once per process."""
    path = reference_path(module)
    return _exec_module(f"reference_{module}", path.read_text(encoding="utf-8"), str(path))


@functools.cache
def _load_variant(module: str, path: str) -> types.ModuleType:
    variant = Path(path)
    return _exec_module(f"variant_{module}_{variant.stem}", compose(module, _override(variant), variant.stem), path)


def _override(path: Path) -> str:
    """A variant's source, after the ``_shared.py`` of its folder (helpers several variants use)."""
    shared = path.parent / SHARED
    prefix = shared.read_text(encoding="utf-8") + "\n\n" if shared.is_file() else ""
    return prefix + path.read_text(encoding="utf-8")


def _variants(module: str, kind: str) -> list[Variant]:
    folder = paths.ASSIGNMENTS / module / kind
    found = []
    for path in sorted(p for p in folder.glob("*.py") if not p.name.startswith("_")) if folder.is_dir() else []:
        text = path.read_text(encoding="utf-8")
        match = re.search(r'^HINT\s*=\s*(["\'])(.*?)\1\s*$', text, re.MULTILINE | re.DOTALL)
        if match is None and kind == "mistakes":
            raise ValueError(f"{path}: a mistake must define HINT = \"...\" (what the student got wrong)")
        found.append(Variant(module=module, name=path.stem, path=path, hint=match.group(2) if match else ""))
    return found


@functools.cache
def mistakes(module: str) -> tuple[Variant, ...]:
    """Known wrong implementations of ``module``, each with the hint it earns."""
    return tuple(_variants(module, "mistakes"))


@functools.cache
def fair_alternatives(module: str) -> tuple[Variant, ...]:
    """Different but correct implementations of ``module``."""
    return tuple(_variants(module, "fair"))
