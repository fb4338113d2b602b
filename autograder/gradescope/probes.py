"""Submissions that probe the container: every function hanging, taking all the memory it may, or leaving processes
behind.

``submission`` writes the reference with every public function of the chosen modules replaced by
one of the bodies below (or by the students' stubs); the emulation tests and bench/bench_gradescope.py
grade them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from ..model import paths


def public_functions(module: str) -> list[str]:
    """The reference's public function names of ``module``."""
    tree = ast.parse((paths.REFERENCE / f"{module}.py").read_text())
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


def submission(dest: Path, overrides: dict[str, str], stubs: tuple[str, ...] = ()) -> Path:
    """The reference, with every public function of each module in ``overrides`` replaced by the given body,
    and the students' stubs for the modules in ``stubs``."""
    dest.mkdir(parents=True)
    for source in paths.REFERENCE.glob("*.py"):
        text = (paths.TEMPLATES / source.name).read_text() if source.stem in stubs else source.read_text()
        body = overrides.get(source.stem)
        if body is not None:
            text += "\n\nimport os, time\nimport numpy as np\n" + "".join(
                f"\n\ndef {name}(*args, **kwargs):\n" + body for name in public_functions(source.stem))
        (dest / source.name).write_text(text)
    return dest


HANG = "    while True:\n        pass\n"
SLEEP = "    time.sleep(10**6)\n"
# Allocates (and touches) all the memory its limit allows, in 32 MB and then 1 MB steps (the module's first call).
HOG = (
    "    hoard = []\n    for step in (1 << 22, 1 << 17) if not globals().get('_hogged') else ():\n        "
    "globals()['_hogged'] = True\n"
    "        try:\n            while True:\n                hoard.append(np.ones(step))\n"
    "        except MemoryError:\n            pass\n    return None\n"
)
# Leaves 200 sleeping children of the worker behind (once per module: the first call).
SPAWN = (
    "    if not globals().get('_spawned'):\n        globals()['_spawned'] = True\n        for _ in range(200):\n"
    "            if os.fork() == 0:\n                time.sleep(1000)\n                os._exit(0)\n    return None\n"
)
