"""What every worker of a session shares: the layers in force, its uid, its folders (the box) and its Python."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from . import identity, policy, runtime, zygote
from .worker import cleanup

SCRATCH_MB = policy.TMP_MB


@dataclass
class SandboxSetup:
    """What every worker of a session shares: the layers, its uid, its folders and its Python."""

    protections: policy.Protections
    identity: identity.Identity | None
    box: runtime.Box
    interpreter: runtime.Interpreter
    fresh_reason: str = "not asked for"  # why its workers start afresh (no zygote here, or it failed); "": forked

    @property
    def forked(self) -> bool:
        """Whether its workers are forked from the zygote (``sandbox.zygote``), not started afresh."""
        return not self.fresh_reason

    @classmethod
    def create(cls, private: tuple[Path, ...], self_check: bool = False) -> SandboxSetup:
        protections = policy.detect()
        if (
            self_check
        ):  # the student's own code, as root (Colab): no uid switch, no chmod, no mirror or lock left behind
            protections = dataclasses.replace(protections, is_root=False)
        # A run killed before its cleanup (kill -9, a notebook kernel ended) left its box: the next session removes it.
        runtime.remove_dead_boxes()
        who = identity.lease() if protections.drop_user else None
        fresh_reason = zygote.unusable(self_check, protections) or ""
        box = None
        try:
            box = runtime.Box.create(who.uid, who.gid) if who else runtime.Box.create()
            if who is None:
                return cls(protections, who, box, runtime.this_interpreter(), fresh_reason)
            # In every mode with a uid of its own, also under bubblewrap (which does not mount them): a layer less
            # must not expose them. Before choosing the Python: a venv inside them is then mirrored.
            runtime.make_private(list(private))
            interpreter = runtime.this_interpreter() if protections.bwrap else _interpreter_for(who)
            return cls(protections, who, box, interpreter, fresh_reason)
        except BaseException:
            if box is not None:
                box.remove()
            if who is not None:
                who.release()
            raise

    def close(self) -> None:
        if self.identity is not None:
            self.identity.release()
        self.box.remove()

    def scratch_view(self, worker_pid: int | None = None) -> tuple | None:
        """The scratch folder as ``cleanup.view`` sees it (under bubblewrap, through the root of the worker's first
        process, ``worker_pid`` as the grader sees it): after each test it must be as it was before the first. The
        folder's own timestamps and extended attributes are reset first: under bubblewrap /tmp is not the worker's
        own, so only the grader can set them back (a view that still differs then replaces the worker)."""
        if not self.protections.bwrap:
            folder = str(self.box.scratch)
        elif worker_pid is None:
            return None
        else:
            folder = f"/proc/{worker_pid}/root/tmp"
        cleanup.unmark(folder)
        return cleanup.view(folder)

    def scratch_overused(self, worker_pid: int | None = None) -> str | None:
        """Why the running call must stop, if the files it wrote (scratch folder, and as its own uid in the shared
        temporary folders) pass ``SCRATCH_MB``, ``cleanup.MAX_ENTRIES`` entries or ``cleanup.MAX_DEPTH`` levels;
        bubblewrap caps the bytes of its in-memory /tmp itself, which the grader sees through the root of the worker's
        first process (``worker_pid``, as the grader sees it)."""
        if self.protections.bwrap:
            if worker_pid is None:
                return None
            used = cleanup.usage(f"/proc/{worker_pid}/root/tmp")
        else:
            used = cleanup.usage(str(self.box.scratch))
            if self.identity is not None:
                for path in identity.files_of(self.identity.uid):
                    cleanup.usage(path, used)
        if used.too_deep:
            return f"made folders more than {cleanup.MAX_DEPTH} levels deep"
        if used.entries > cleanup.MAX_ENTRIES:
            return f"made more than {cleanup.MAX_ENTRIES} files and folders"
        if not self.protections.bwrap and used.bytes > SCRATCH_MB << 20:
            return f"wrote more than {SCRATCH_MB} MB of files ({used.bytes >> 20} MB)"
        return None


_CHECKED: dict[str, runtime.Interpreter] = {}


def _interpreter_for(who: identity.Identity) -> runtime.Interpreter:
    """The Python the sandbox uid can start, checked once per process."""
    found = runtime.interpreter_for_others()
    if found.executable not in _CHECKED:
        runtime.verify(found, who.uid, who.gid)
        _CHECKED[found.executable] = found
    return found
