"""The trusted implementations: the reference, its known mistakes and its fair alternatives.

A mistake or a fair alternative is a small file under ``assignments/<module>/mistakes/`` or
``.../fair/`` that redefines some functions of the reference; the module it stands for is
the reference source followed by that file. They run in the grader (they are staff code).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import types
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import paths
from .sandbox import wire

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


# ---- recorded reference outputs (the handout ships these instead of the reference) ----

RECORDED = "public_expected"


def recorded_paths(module: str, root: Path | None = None) -> tuple[Path, Path]:
    """The JSON index and the arrays (.npz) of the reference outputs recorded for the public tests."""
    folder = (root or paths.ASSIGNMENTS) / module / "tests"
    return folder / f"{RECORDED}.json", folder / f"{RECORDED}.npz"


def _to_array(value: object) -> tuple | None:
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return value.detach().cpu().numpy(), "tensor"
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value), "ndarray"
    return None


def save_recorded(module: str, calls: list[tuple[str, tuple, dict, object]], root: Path) -> None:
    """Write (func, args, kwargs, output) of each recorded call for ``module`` under ``root``."""
    index, blobs = [], []
    for func, args, kwargs, output in calls:
        tree, arrays = wire.encode([list(args), kwargs, output], _to_array)
        index.append({"func": func, "value": tree, "first_blob": len(blobs), "blobs": len(arrays)})
        blobs += arrays
    json_path, npz_path = recorded_paths(module, root)
    json_path.write_text(json.dumps({"module": module, "calls": index}), encoding="utf-8")
    np.savez_compressed(npz_path, *blobs)


@functools.cache
def _recorded(module: str) -> tuple[list[dict], list[np.ndarray], dict[str, int]]:
    """The recorded calls, their arrays, and an index from each call's exact key to its position."""
    json_path, npz_path = recorded_paths(module)
    if not json_path.is_file():
        return [], [], {}
    with np.load(npz_path, allow_pickle=False) as npz:
        blobs = [npz[f"arr_{i}"] for i in range(len(npz.files))]
    calls = json.loads(json_path.read_text(encoding="utf-8"))["calls"]
    index = {}
    for position, entry in enumerate(calls):
        inputs = {"t": "list", "items": entry["value"]["items"][:2]}
        own = blobs[entry["first_blob"]: entry["first_blob"] + entry["blobs"]]
        index.setdefault(_exact_key(entry["func"], inputs, own[: _array_count(inputs)]), position)
    return calls, blobs, index


def _array_count(tree: object) -> int:
    if isinstance(tree, dict):
        return (tree.get("t") == "array") + sum(_array_count(v) for v in tree.values())
    if isinstance(tree, list):
        return sum(_array_count(v) for v in tree)
    return 0


def _exact_key(func: str, tree: object, arrays: list[np.ndarray]) -> str:
    """A digest of a call's function and inputs, bit for bit (a dictionary lookup before the close comparison)."""
    digest = hashlib.sha256(func.encode() + json.dumps(tree, sort_keys=True).encode())
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def _same(a: object, blobs_a: list, b: object, blobs_b: list) -> bool:
    """Equal encoded trees; arrays and floats compared closely (inputs rebuilt on another machine)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.get("t") == "array" == b.get("t"):
            x, y = blobs_a[a["blob"]], blobs_b[b["blob"]]
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            if x.dtype.kind not in "fc":
                return bool(np.array_equal(x, y))
            scale = float(np.nanmax(np.abs(y))) if y.size and np.isfinite(y).any() else 1.0
            return bool(np.allclose(x, y, rtol=1e-7, atol=1e-12 * max(scale, 1.0), equal_nan=True))
        if a.get("t") == "float" == b.get("t") and isinstance(a["v"], float) and isinstance(b["v"], float):
            return math.isclose(a["v"], b["v"], rel_tol=1e-9, abs_tol=1e-300)
        return a.keys() == b.keys() and all(_same(a[k], blobs_a, b[k], blobs_b) for k in a if k != "blob")
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, blobs_a, y, blobs_b) for x, y in zip(a, b, strict=True))
    return a == b


def recorded_output(module: str, func: str, args: tuple, kwargs: dict) -> object:
    """The reference's output recorded for this exact call (the handout has no reference to run)."""
    import torch

    calls, blobs, index = _recorded(module)
    tree, arrays = wire.encode([list(args), kwargs], _to_array)
    exact = index.get(_exact_key(func, tree, arrays))
    # Inputs rebuilt on another machine may differ in the last bits: then the close comparison finds them.
    candidates = ([calls[exact]] if exact is not None else []) + calls
    for entry in candidates:
        own = blobs[entry["first_blob"]: entry["first_blob"] + entry["blobs"]]
        if entry["func"] == func and _same(tree, arrays, {"t": "list", "items": entry["value"]["items"][:2]}, own):
            make = {"tensor": torch.from_numpy, "generator": lambda seed: torch.Generator().manual_seed(seed), "named": wire.Named}
            return wire.decode(entry["value"]["items"][2], own, make)
    raise LookupError(f"no expected value is recorded for {module}.{func} with these arguments; "
                      "the handout's public tests and recorded values are out of sync (tell the course staff)")
