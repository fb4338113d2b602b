"""What the worker needs on disk, reachable by the sandbox uid, and nothing of the grader's.

Without bubblewrap, a worker that dropped to another uid sees the real filesystem through
plain permissions. This module makes that view right:

- the Python install must be readable by the sandbox uid. Where it sits under a private
  folder (``/root`` is 0700: pyenv there, say), a mirror made of
  hard links (copies across filesystems) is built once in a root-owned cache and used instead;
- the worker's own code is copied into the worker's box (the harness folder stays private);
- the grader's folders (the project with its reference, tests and git history; on Gradescope
  /autograder/source and /autograder/results) are made private to their owner when other
  users could read them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import settings
from .worker.cleanup import empty_folder, remove_tree

WORKER_DIR = Path(__file__).resolve().parent / "worker"  # the code copied into each box
WORKER_FILES = (
    "main.py",
    "serving.py",
    "metering.py",
    "wire.py",
    "callables.py",
    "confine.py",
    "cleanup.py",
    "procfs.py",
    "isolation.py",
    "imports.py",
)
CACHE = Path(settings.AUTOGRADER_CACHE.value())
SKIPPED_IN_MIRROR = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3"}


@dataclass(frozen=True)
class Interpreter:
    """The Python the worker starts with, and what its environment needs for it to load."""

    executable: str
    roots: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    mirrored: bool = False


def reachable(path: str | Path, need: int = stat.S_IROTH | stat.S_IXOTH) -> bool:
    """Whether a user with no rights of owner or group can reach ``path`` (and has ``need`` on it)."""
    path = Path(os.path.realpath(path))
    try:
        for parent in reversed(path.parents):
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                return False
        return os.stat(path).st_mode & need == need
    except OSError:
        return False


def python_roots() -> list[str]:
    """Directories the grader's Python needs: the environment, the interpreter it is built on, and the folder of each
    link on the way from one to the other (a venv made with ``~/bin/python3``, a link to a pyenv or Homebrew Python,
    starts through ``~/bin``)."""
    roots = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    for folder in [*_link_folders(sys.executable), os.path.dirname(os.path.realpath(sys.executable))]:
        if not any(folder == r or folder.startswith(r + os.sep) for r in roots):
            roots.add(folder)
    return sorted(roots)


def _link_folders(path: str) -> list[str]:
    """The folder of ``path`` and of every symbolic link it leads through, as exec follows them."""
    folders, path = [], os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links followed
        folders.append(os.path.dirname(path))
        try:
            target = os.readlink(path)
        except OSError:  # not a link (or unreadable): the end of the chain
            break
        path = os.path.normpath(os.path.join(os.path.dirname(path), target))
    return folders


def this_interpreter() -> Interpreter:
    """The grader's own Python, as it is."""
    return Interpreter(sys.executable, tuple(python_roots()))


def interpreter_for_others() -> Interpreter:
    """The grader's Python if any user can read it, else a mirror of it that any user can (built once, as root)."""
    if all(reachable(r) for r in python_roots()):
        return this_interpreter()
    return _mirror()


def _fingerprint() -> str:
    """What the mirror depends on: the install's paths and dates, and whether its site-packages can be linked to as
    is."""
    base, prefix = Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()
    marks = [str(base), str(prefix), sys.version, reachable(Path(sysconfig.get_paths()["purelib"]).resolve())]
    for path in (
        Path(os.path.realpath(sys.executable)),
        base / "lib",
        prefix / "pyvenv.cfg",
        Path(sysconfig.get_paths()["purelib"]),
    ):
        try:
            info = os.stat(path)
            marks.append(f"{path}:{info.st_mtime_ns}:{info.st_size}")
        except OSError:
            marks.append(f"{path}:-")
    return hashlib.sha256(json.dumps(marks).encode()).hexdigest()[:16]


def _mirror() -> Interpreter:
    """A copy of the Python install under the cache, hard-linked where it can be; reused while the install is
    unchanged."""
    target = CACHE / f"python-{_fingerprint()}"
    if not (target / "ready.json").is_file():
        _ensure_private_owner(CACHE)
        work = Path(tempfile.mkdtemp(prefix="python-building-", dir=CACHE))
        os.chmod(work, 0o755)
        _build_mirror(work, target)
        try:
            os.rename(work, target)
        except OSError:  # another grader finished the same mirror first
            shutil.rmtree(work, ignore_errors=True)
    spec = json.loads((target / "ready.json").read_text(encoding="utf-8"))
    _remove_orphan_mirrors(keep=target)
    return Interpreter(spec["executable"], tuple(spec["roots"]), spec["env"], mirrored=True)


def _remove_orphan_mirrors(keep: Path) -> None:
    """Remove the mirrors of Python installs that are gone (a deleted venv or checkout): each holds up to 1.6 GB that
    nothing links to any more, and no grader can still be using it. A mirror of an install that still exists stays,
    however old: a grader elsewhere may run on it."""
    for mirror in CACHE.glob("python-*"):
        if mirror == keep or mirror.name.startswith("python-building-"):
            continue
        try:
            source = json.loads((mirror / "ready.json").read_text(encoding="utf-8")).get("source")
        except (OSError, ValueError):
            continue  # being built, or not ours to judge
        if isinstance(source, str) and source.startswith("/") and not os.path.exists(source):
            shutil.rmtree(mirror, ignore_errors=True)


def _build_mirror(work: Path, target: Path) -> None:
    """Lay out the mirror in ``work``; every path it records is where it will live, ``target``."""
    base, prefix = Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()
    in_venv = base != prefix
    _link_tree(base, work / "base", skip_site_packages=in_venv)
    roots = [target / "base"]
    executable = target / "base" / "bin" / os.path.basename(os.path.realpath(sys.executable))
    if in_venv:
        # A venv of the mirrored base whose site-packages is the real one when any user can read it.
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        site = Path(sysconfig.get_paths()["purelib"]).resolve()
        venv = work / "venv"
        if reachable(site):
            (venv / "lib" / version).mkdir(parents=True)
            os.symlink(site, venv / "lib" / version / "site-packages")
            roots.append(site)
        else:
            _link_tree(prefix, venv, skip_site_packages=False)
        (venv / "bin").mkdir(parents=True, exist_ok=True)
        python = venv / "bin" / "python"
        python.unlink(missing_ok=True)
        os.symlink(executable, python)
        (venv / "pyvenv.cfg").unlink(missing_ok=True)  # a hard link to the real one: write a new file, never through it
        (venv / "pyvenv.cfg").write_text(f"home = {executable.parent}\ninclude-system-site-packages = false\n"
                                         f"version = {sys.version.split()[0]}\n", encoding="utf-8")
        roots.append(target / "venv")
        executable = target / "venv" / "bin" / "python"
    spec = {
        "executable": str(executable),
        "roots": sorted(str(r) for r in roots),
        "env": {"LD_LIBRARY_PATH": str(target / "base" / "lib")},
        "source": str(prefix),  # once it is gone, so is any use of this mirror (``_remove_orphan_mirrors``)
    }
    (work / "ready.json").write_text(json.dumps(spec), encoding="utf-8")


def _link_tree(source: Path, target: Path, skip_site_packages: bool) -> None:
    """Hard-link (or copy, across filesystems) ``source`` into ``target``, leaving out test suites and GUI kits."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        skipped = {n for n in names if n in SKIPPED_IN_MIRROR and Path(folder).name.startswith("python")}
        if skip_site_packages and Path(folder).name.startswith("python") and Path(folder).parent.name == "lib":
            skipped.add("site-packages")
        return skipped

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    shutil.copytree(source, target, symlinks=True, ignore=ignore, copy_function=link)


def _ensure_private_owner(folder: Path) -> None:
    folder.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise RuntimeError(
            f"{folder} must be a folder owned by this user and writable only by it; remove it or set AUTOGRADER_CACHE"
        )


def verify(interpreter: Interpreter, uid: int, gid: int) -> None:
    """Start ``interpreter`` as ``uid`` once; raise with its error if it cannot load (a machine fault)."""
    proc = subprocess.run([interpreter.executable, "-I", "-B", "-c", "import sys, encodings; print(sys.prefix)"],
                          user=uid, group=gid, extra_groups=[], env=dict(interpreter.env, PATH="/usr/bin:/bin"),
                          cwd="/", capture_output=True, text=True, timeout=60, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the sandbox user cannot start {interpreter.executable}: {proc.stderr.strip()[-500:]}")


def make_private(paths: list[Path]) -> list[str]:
    """Take other users' access away from each path they can reach (the grader's own folders); return what changed.

    A path inside the Python install (a harness installed into site-packages) is left alone: the
    sandbox needs to read it, and so may other users of that Python."""
    changed = []
    roots = [Path(r) for r in python_roots()]
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            continue
        real = Path(os.path.realpath(path))
        if any(real == r or real.is_relative_to(r) for r in roots):
            continue
        if info.st_mode & 0o007 and reachable(path, stat.S_IXOTH):
            os.chmod(path, stat.S_IMODE(info.st_mode) & ~0o007)
            changed.append(str(path))
    return changed


def _copy_worker_code(dest: Path) -> None:
    """The worker's modules, with their bytecode where there is some: each worker then loads it rather than compiling
    its modules again (about 50 ms of CPU per worker start). A copy keeps the source's mtime, which the bytecode is
    checked against, so stale bytecode is never used (the worker compiles that module as it would without)."""
    for name in WORKER_FILES:
        shutil.copy2(WORKER_DIR / name, dest / name)
        compiled = WORKER_DIR / "__pycache__" / f"{name[:-3]}.{sys.implementation.cache_tag}.pyc"
        if name != "main.py" and compiled.is_file():  # main.py runs as a script: never from bytecode
            (dest / "__pycache__").mkdir(exist_ok=True)
            shutil.copy2(compiled, dest / "__pycache__" / compiled.name)


@dataclass
class Box:
    """One worker's folders: its code, the staged submissions (readable by its group only) and its scratch."""

    root: Path
    worker: Path
    submissions: Path
    scratch: Path
    gid: int | None = None
    uid: int | None = None
    modes: dict[Path, int] = field(
        default_factory=dict
    )  # what each of its folders and files must keep (see restore_modes)

    @classmethod
    def create(cls, uid: int | None = None, gid: int | None = None) -> Box:
        """A fresh box; with ``uid``/``gid`` (a root grader) only that sandbox user reaches inside it."""
        root = Path(
            tempfile.mkdtemp(prefix=f"{BOX_PREFIX}{os.getpid()}-", dir=_reachable_tmp() if uid is not None else None)
        )
        box = cls(root, root / "worker", root / "submissions", root / "scratch", gid, uid)
        box.worker.mkdir()
        _copy_worker_code(box.worker)
        box.submissions.mkdir()
        box.scratch.mkdir()
        if uid is not None:
            os.chmod(root, 0o711)
            for path in [box.worker, *box.worker.rglob("*")]:
                os.chmod(path, 0o755 if path.is_dir() else 0o644)
            os.chown(box.scratch, uid, gid)
        box.admit(box.submissions)
        box.remember([box.root, box.worker, *box.worker.rglob("*")])
        os.chmod(box.scratch, 0o700)
        return box

    def remember(self, paths: list[Path]) -> None:
        """Note the mode each path has now that student code could change: ``restore_modes`` puts it back. Only a
        path's owner may ``chmod`` it, so with a uid of its own (the box's files are root's) only what that uid owns
        is noted, and ``restore_modes`` reads nothing after each call; sharing the grader's uid, every path."""
        for path in paths:
            info = os.lstat(path)
            if self.uid is None or info.st_uid == self.uid:
                self.modes[path] = stat.S_IMODE(info.st_mode)

    def restore_modes(self) -> list[Path]:
        """Put back the mode of every folder and file of the box that changed (those ``remember`` noted). As root they
        are root's and stay as they are; a grader running as a normal user shares its uid with student code, which
        Landlock does not keep from ``chmod`` (a file of the worker's code made unreadable would stop every later
        worker from starting)."""
        changed = []
        for path, mode in list(self.modes.items()):
            try:
                if stat.S_IMODE(os.lstat(path).st_mode) != mode:
                    os.chmod(path, mode)
                    changed.append(path)
            except FileNotFoundError:
                del self.modes[path]  # a submission folder discarded
            except OSError:
                continue
        return changed

    def reset_scratch(self) -> None:
        """Empty the scratch folder and give it back its owner, mode (0700), timestamps and no extended attributes,
        whatever student code did to it."""
        empty_folder(str(self.scratch))
        try:
            if self.uid is not None:
                os.chown(self.scratch, self.uid, self.gid)
            os.chmod(self.scratch, 0o700)
        except OSError:
            pass

    def admit(self, folder: Path) -> None:
        """Let the worker's group (and nobody else) read ``folder`` and the files in it."""
        paths = [folder, *folder.rglob("*")]
        if self.gid is not None:
            for path in paths:
                os.lchown(path, 0, self.gid)
                if not path.is_symlink():
                    os.chmod(path, 0o750 if path.is_dir() else 0o640)
        self.remember([p for p in paths if not p.is_symlink()])

    def remove(self) -> None:
        """Delete the box, including what student code left in the scratch folder (even folders it locked)."""
        remove_tree(str(self.root))


BOX_PREFIX = "autograder-box-"  # then the id of the process that made the box: a later run can tell it is dead
TMP_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")  # where a box may be, besides $TMPDIR


def remove_dead_boxes() -> list[Path]:
    """Delete the boxes (holding students' modules) that a process killed before its cleanup left in the temporary
    folders (``kill -9`` runs none); a box whose process lives, or whose name does not say its process, stays."""
    removed: list[Path] = []
    if os.name == "nt":  # no such boxes there, and os.kill(pid, 0) would end the process
        return removed
    for folder in dict.fromkeys((tempfile.gettempdir(), *TMP_FOLDERS)):
        try:
            boxes = [p for p in Path(folder).glob(f"{BOX_PREFIX}*") if p.is_dir() and not p.is_symlink()]
        except OSError:
            continue
        for box in boxes:
            pid, dash, _ = box.name[len(BOX_PREFIX):].partition("-")  # mkdtemp's own suffix never holds a "-"
            if dash and pid.isdigit() and not _alive(int(pid)):
                remove_tree(str(box))
                if not box.exists():
                    removed.append(box)
    return removed


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (another user's counts: it may be grading). A zombie does not: a killed job whose
    parent died too waits for a reaper that may never come (a container's init often reaps nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True  # no /proc (macOS): it exists


def _reachable_tmp() -> str:
    """A temporary folder other users can traverse (``$TMPDIR`` may be private, as under pytest)."""
    for folder in (tempfile.gettempdir(), *TMP_FOLDERS):
        if reachable(folder, stat.S_IXOTH) and os.access(folder, os.W_OK):
            return folder
    raise RuntimeError("no temporary folder that the sandbox user can reach (tried $TMPDIR, /tmp, /var/tmp, /dev/shm)")
