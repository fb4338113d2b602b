"""Put a submission's module sources where a worker can import them, and nothing else."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path


def stage_sources(sources: Mapping[str, bytes], parent: Path, name: str) -> Path:
    """Write ``<module>.py`` for each of ``sources`` (module name -> source bytes) into a new folder ``parent/name``."""
    folder = Path(parent) / name
    folder.mkdir()
    os.chmod(folder, 0o755)
    for module, source in sources.items():
        target = folder / f"{module}.py"
        target.write_bytes(source)
        os.chmod(target, 0o644)
    return folder


def discard(folder: Path) -> None:
    """Remove a staged folder."""
    shutil.rmtree(folder, ignore_errors=True)
