"""Generators for hostile submission *shapes*: zips and folders built at test time.

Each builder writes one submission under ``dest`` and returns its path. ``modules`` maps a
module name to the honest source to submit for it (the reference); ``ctx`` carries the
marker and the folders the hostile parts aim at. Files that must never be executed or read
(conftest.py, sitecustomize.py, a pickled .OTTER_LOG, ...) are generated here rather than
stored in the repository, so that pytest and Python never pick them up themselves.
"""

from __future__ import annotations

import os
import pickle
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

BOMB_BYTES = (2 << 30) - 1  # 2 GiB of zeros, still below zip64 so the headers stay simple


@dataclass(frozen=True)
class Context:
    """What a hostile submission knows about its surroundings."""

    marker: str
    scratch: Path
    project: Path

    def tripwire(self, name: str) -> str:
        """Python source that leaves a file in the scratch folder if it is ever executed."""
        return f"open({str(self.scratch / f'executed-{name}-{self.marker}')!r}, 'w').close()\n"


def _write_dir(folder: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return folder


def _write_zip(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def _sources(modules: dict[str, bytes], prefix: str = "", skip: str | None = None) -> dict[str, bytes]:
    return {f"{prefix}{m}.py": src for m, src in modules.items() if m != skip}


class _Unpickled:
    """Pickles to a call of os.system: loading the .OTTER_LOG would run the command."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def _extras(ctx: Context) -> dict[str, bytes]:
    """Files a careless grader might import, execute or unpickle; each trips a wire if it does."""
    code = {name: ctx.tripwire(name).encode() for name in (
        "conftest", "sitecustomize", "usercustomize", "setup", "__init__", "autograder_init", "autograder_main", "otter_config")}
    return {
        "conftest.py": code["conftest"],
        "sitecustomize.py": code["sitecustomize"],
        "usercustomize.py": code["usercustomize"],
        "setup.py": code["setup"],
        "__init__.py": code["__init__"],
        "autograder/__init__.py": code["autograder_init"],
        "autograder/__main__.py": code["autograder_main"],
        "autograder/grading.py": code["autograder_init"] + b"def grade(*a, **k):\n    raise SystemExit(0)\n",
        "tests/conftest.py": code["conftest"],
        "hostile.pth": b"import os; " + code["sitecustomize"],
        "otter_config.json": b'{"pdf": true, "setup": "' + code["otter_config"].strip() + b'"}',
        ".OTTER_LOG": pickle.dumps(_Unpickled(f"touch {ctx.scratch / f'unpickled-{ctx.marker}'}")),
        "results/results.json": b'{"score": 999, "tests": []}',
        "results.json": b'{"score": 999, "tests": []}',
    }


def zip_top(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    return _write_zip(dest / "submission.zip", _sources(modules))


def zip_in_folder(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    return _write_zip(dest / "submission.zip", _sources(modules, "homework/") | {"homework/notes.txt": b"my notes\n"})


def dir_in_folder(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    return _write_dir(dest / "submission", _sources(modules, "my solutions/"))


def missing_module(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    return _write_dir(dest / "submission", _sources(modules, skip="qkv_arithmetic"))


def empty_dir(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    (dest / "submission").mkdir()
    return dest / "submission"


def empty_zip(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    return _write_zip(dest / "submission.zip", {})


def not_a_zip(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    path = dest / "submission.zip"
    path.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 16)
    return path


def extras_dir(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    return _write_dir(dest / "submission", _sources(modules) | _extras(ctx))


def extras_zip(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    return _write_zip(dest / "submission.zip", _sources(modules, "hw/") | {f"hw/{k}": v for k, v in _extras(ctx).items()})


def zip_slip(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    evil = ctx.tripwire("zip-slip").encode()
    entries = _sources(modules) | {
        f"../../escape-{ctx.marker}.py": evil,
        "../qkv_arithmetic.py": evil,
        f"/tmp/abs-{ctx.marker}.py": evil,
        f"{ctx.scratch}/abs-{ctx.marker}.py": evil,
        f"..\\..\\win-{ctx.marker}.py": evil,
        f"C:/drive-{ctx.marker}.py": evil,
        f"hw/../../up-{ctx.marker}.py": evil,
        f"{ctx.project}/reference/qkv_arithmetic.py": evil,
    }
    path = dest / "submission.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo("placeholder")
            info.filename = name  # ZipInfo() would normalise away the leading slash and the drive
            zf.writestr(info, data)
    return path


def symlink_dir(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    folder = _write_dir(dest / "submission", _sources(modules, skip="qkv_arithmetic"))
    (folder / "qkv_arithmetic.py").symlink_to(ctx.project / "reference" / "qkv_arithmetic.py")
    return folder


def symlink_folder(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    folder = dest / "submission"
    folder.mkdir()
    (folder / "hw").symlink_to(ctx.project / "reference", target_is_directory=True)
    return folder


def symlink_zip(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    path = dest / "submission.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in _sources(modules, skip="qkv_arithmetic").items():
            zf.writestr(name, data)
        info = zipfile.ZipInfo("qkv_arithmetic.py")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, str(ctx.project / "reference" / "qkv_arithmetic.py"))
    return path


def fifo(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    folder = _write_dir(dest / "submission", _sources(modules, skip="qkv_arithmetic"))
    os.mkfifo(folder / "qkv_arithmetic.py")
    return folder


def big_module(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    padded = modules["qkv_arithmetic"] + b"\n" + (b"# padding " * 8 + b"\n") * 30_000
    return _write_dir(dest / "submission", _sources(modules) | {"qkv_arithmetic.py": padded})


def many_entries(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    path = dest / "submission.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as zf:
        for name, data in _sources(modules).items():
            zf.writestr(name, data)
        for i in range(12_000):
            zf.writestr(f"junk/{i}.txt", b"")
    return path


def _bomb_stream(size: int) -> tuple[bytes, int]:
    """A raw deflate stream of ``size`` zero bytes, built from one repeated block (no need to compress GBs)."""
    block_len = 1 << 20
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = comp.compress(bytes(block_len)) + comp.flush(zlib.Z_FULL_FLUSH)
    full, rest = divmod(size, block_len)
    tail = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream = block * full + tail.compress(bytes(rest)) + tail.flush()
    crc = 0
    zero_block = bytes(block_len)
    for _ in range(full):
        crc = zlib.crc32(zero_block, crc)
    return stream, zlib.crc32(bytes(rest), crc)


def _raw_zip(path: Path, entries: list[tuple[str, bytes, int, int, int]]) -> Path:
    """A zip written by hand: (name, deflated data, crc, claimed size, real size) per entry."""
    local, central, offset = [], [], 0
    for name, data, crc, claimed, _real in entries:
        raw = name.encode()
        head = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 8, 0, 33, crc, len(data), claimed, len(raw), 0) + raw
        central.append(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 8, 0, 33, crc, len(data), claimed,
                                   len(raw), 0, 0, 0, 0, 0o644 << 16, offset) + raw)
        local.append(head + data)
        offset += len(head) + len(data)
    directory = b"".join(central)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(directory), offset, 0)
    path.write_bytes(b"".join(local) + directory + end)
    return path


def _bomb_zip(dest: Path, modules: dict[str, bytes], lie: bool) -> Path:
    stream, crc = _bomb_stream(BOMB_BYTES)
    claimed = 1000 if lie else BOMB_BYTES
    entries = [("qkv_arithmetic.py", stream, crc, claimed, BOMB_BYTES)]
    entries += [(f"data/zeros-{i}.bin", stream, crc, BOMB_BYTES, BOMB_BYTES) for i in range(4)]
    for name, src in _sources(modules, skip="qkv_arithmetic").items():
        entries.append((name, zlib.compress(src, 9)[2:-4], zlib.crc32(src), len(src), len(src)))
    return _raw_zip(dest / "submission.zip", entries)


def zip_bomb(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    return _bomb_zip(dest, modules, lie=False)


def zip_bomb_lying_header(dest: Path, modules: dict[str, bytes], ctx: Context) -> Path:
    return _bomb_zip(dest, modules, lie=True)


BUILDERS: dict[str, Callable[[Path, dict[str, bytes], Context], Path]] = {
    name: fn for name, fn in globals().items()
    if callable(fn) and not name.startswith("_") and getattr(fn, "__module__", None) == __name__ and name not in ("Context",)
}
