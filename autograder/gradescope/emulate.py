"""Run the zip's entry point as Gradescope would: /autograder laid out, as root, in a capped cgroup, then everything
killed.

``emulate`` is the one entry: the ``emulate`` command, the tests and the benchmarks call it.
The project's Python environment stands in for the image's (setup.sh is not run here: nothing
can reach the package indexes), and what could not be emulated is listed in the result.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..model import manifest
from ..sandbox import errors, procfs
from . import container, image, layout, run_record

NO_NAMESPACES = "AUTOGRADER_NO_BWRAP"  # the sandbox's switch that refuses bubblewrap (as many containers do)


@dataclass
class Run:
    """What one emulated submission gave: Gradescope's results (None if it would show nothing) and what it cost."""

    results: dict | None
    wall_seconds: float
    peak_memory_mb: float | None
    cpu_seconds: float | None
    throttled_periods: int | None
    oom_kills: int | None
    leftovers_killed: int
    timed_out: bool
    exit_status: int | None
    stdout: str
    caps: container.Caps | None
    namespaces: bool
    source_mode: int | None = None  # /autograder/source's permissions when the run ended (0o700: root only)
    not_emulated: list[str] = field(default_factory=list)
    staff_notes: list[str] = field(default_factory=list)  # what the grader said of the run (its run record)
    refused: Counter = field(
        default_factory=Counter
    )  # calls stopped at their limit or not run, by kind (its run record)

    @property
    def stopped_calls(self) -> int:
        """Calls stopped at their time limit (also those the time rules put down to a busy machine)."""
        return self.refused[errors.TIMEOUT] + self.refused[errors.BUSY]

    @property
    def calls_not_run(self) -> int:
        """Calls the time rules did not run (a function stopped before, a spent budget, the deadline)."""
        return sum(self.refused[kind] for kind in errors.NOT_RUN)


def emulate(
    autograder_zip: Path,
    submission: Path,
    *,
    namespaces: bool = True,
    limits: bool = True,
    caps: container.Caps | None = None,
    timeout_seconds: float | None = None,
    environment: Path | None = None,
) -> Run:
    """Grade ``submission`` with ``autograder_zip`` in an emulated Gradescope container.

    ``namespaces=False`` refuses bubblewrap to the sandbox; ``limits=False`` skips the cgroup. Caps and
    the overall timeout default to the manifest's Gradescope settings; ``environment`` (default: this
    Python's) stands in for the image's.
    """
    settings = manifest.load().gradescope
    caps = caps or container.Caps(cpus=settings.cpus, memory_mb=settings.memory_mb)
    timeout_seconds = timeout_seconds or settings.timeout_minutes * 60
    environment = Path(environment or sys.prefix)
    not_emulated = [
        f"the image: setup.sh is not run; {environment} stands in for {image.ENV_DIR} (only its last step, compiling "
        "the source, is done)",
        "Docker's own confinement (seccomp profile, dropped capabilities, network): only the cgroup is emulated",
    ]
    with layout.exclusive_root() as root:
        layout.lay_out(root, Path(autograder_zip), Path(submission))
        if not image.compile_source(root / "source", environment):
            not_emulated.append("the source's bytecode: compiling it as setup.sh does failed, so the run compiles it")
        group = None
        if limits:
            try:
                group = container.create(caps)
            except container.CgroupUnavailable as exc:
                not_emulated.append(f"CPU and memory caps, peak memory and killing what is left: {exc}")
        else:
            not_emulated.append("CPU and memory caps, peak memory and killing what is left: turned off (limits=False)")
        try:
            run = _execute(root, group, environment, namespaces, timeout_seconds)
        finally:
            leftovers = group.close() if group is not None else 0
        run.source_mode = stat.S_IMODE((root / "source").stat().st_mode)
        if group is not None and run.peak_memory_mb is None:
            not_emulated.append("peak memory: this kernel's cgroup has no peak counter (memory.peak needs Linux 5.19)")
        if group is not None:
            not_emulated.append(
                "a cold page cache: libraries this machine had already read are charged to whoever read them first; in "
                "a "
                "fresh container their pages count too (reclaimable, so the peak there can reach the limit without "
                "harm)"
            )
        run.leftovers_killed += leftovers
        run.caps = caps if group is not None else None
        run.not_emulated = not_emulated
        return run


def _execute(
    root: Path, group: container.Cgroup | None, environment: Path, namespaces: bool, timeout_seconds: float
) -> Run:
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
           image.ENV_OVERRIDE: str(environment)}
    if not namespaces:
        env[NO_NAMESPACES] = "1"
    argv = [str(root / "run_autograder")]
    with tempfile.TemporaryFile() as out:
        start = time.monotonic()
        proc = subprocess.Popen(
            group.entry_command(argv) if group else argv,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            status, timed_out = proc.wait(timeout=timeout_seconds), False
        except subprocess.TimeoutExpired:
            status, timed_out = None, True
        wall = time.monotonic() - start
        leftovers = group.kill_all() if group is not None else _kill_session(proc.pid)
        proc.wait()
        out.seek(0)
        stdout = out.read().decode("utf-8", "replace")
    staff_notes, refused = run_record.read_run_record(root / "results")
    return Run(
        results=None if timed_out else _read_results(root / "results" / "results.json"),
        wall_seconds=wall,
        peak_memory_mb=group.peak_mb() if group else None,
        cpu_seconds=group.cpu_seconds() if group else None,
        throttled_periods=group.throttled_periods() if group else None,
        oom_kills=group.oom_kills() if group else None,
        leftovers_killed=leftovers,
        timed_out=timed_out,
        exit_status=status,
        stdout=stdout,
        caps=None,
        namespaces=namespaces,
        staff_notes=staff_notes,
        refused=refused,
    )


def _kill_session(sid: int) -> int:
    """Without a cgroup: kill what is left in the entry point's session (processes that left it survive)."""
    killed = 0
    for pid in procfs.pids():
        info = procfs.stat(pid)
        if info is not None and info.session == sid:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except OSError:
                continue
    return killed


def _read_results(path: Path) -> dict | None:
    """results.json as Gradescope reads it: None when missing or not a JSON object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
