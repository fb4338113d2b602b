"""The grader's side of the sandbox: start a worker, send calls, enforce their CPU time and a wall-clock backstop.

A ``WorkerSession`` serves one submission. It starts a worker lazily and imports a module on its first call, in a
child of the worker of its own (``fresh`` ends it, so the next test's calls start another). However a call ends (a
reply, a call stopped at its limit: its child is interrupted, a child that exited or crashed), the grader checks in
/proc that the worker is as it was before any student code ran, and replaces the worker with a fresh one only when it
is not, or when the worker itself died. The time budgets of problems are the grading layer's (``grading.time_rules``).
Every failure comes back as a ``StudentCallError`` carrying a message written for the student.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..settings import CPU_SHARE, RESET_FREE_SECONDS, RESET_SECONDS, WALL_BACKSTOP
from . import codec, environment, errors, policy, staging, zygote
from .errors import SandboxFault, StudentCallError, import_failure
from .exchange import STARTUP_SECONDS, Exchange
from .output import OutputBuffer
from .process import CpuLimitReached, ModuleEnded, Overuse, UnreadableReply, WorkerProcess, how_it_ended, waited_seconds
from .setup import SandboxSetup
from .worker import wire

HARNESS_ROOT = Path(__file__).resolve().parents[2]  # the project the harness runs from: private to the sandbox user


class WorkerSession:
    """All calls for the submissions staged in its box; restarts the worker after a kill or a crash.

    ``private`` lists the grader's folders that the sandbox user must not read (default: the
    harness's project folder); they are made private when the worker runs as another uid.
    """

    def __init__(self, memory_mb: int, start_now: bool = False, private: tuple[Path, ...] = (HARNESS_ROOT,),
                 self_check: bool = False) -> None:
        policy.refuse_unsandboxed()  # never grade others' code where only the portable path could run
        self.memory_mb = memory_mb
        self.setup = SandboxSetup.create(tuple(private), self_check)
        self.output = OutputBuffer()
        self._worker: WorkerProcess | None = None
        self._live: tuple | None = None  # (folder, module) imported in the worker's current child
        self.folder: str | None = None  # the current submission's folder in the box
        self._ids = itertools.count(1)
        self._staged = itertools.count(1)
        self.broken: dict[str, str] = {}
        self.exchanges: list[Exchange] = []  # what each import, call and reset of the current submission cost
        self._limits: dict[
            str, float
        ] = {}  # per module, the call limit of its last exchange (what a failed reset counts as)
        self.restarts = 0
        self.grouped = False  # whether the last worker that started has a cgroup of its own (its calls' CPU read there)
        if start_now:
            try:
                self._begin()
            except BaseException:
                self.close()  # no one else holds the session yet: its box and uid would outlive the run
                raise

    @property
    def protections(self) -> policy.Protections:
        return self.setup.protections

    def stage(self, sources: Mapping[str, bytes]) -> str:
        """Write the modules (name -> source) into a fresh folder of the box that only the worker's user may read;
        return its name.

        The last module's process is ended first, and the grader checks the box as after any test: a process that lives
        on after its last reply could otherwise still change the box's modes (as the grader's own user, chmod 000 of the
        submissions folder) under the next submission."""
        if self._live is not None and self._worker is not None and not self._worker.killed_by_us:
            self._reset()
        self.setup.box.restore_modes()
        folder = staging.stage_sources(sources, self.setup.box.submissions, f"submission-{next(self._staged)}")
        self.setup.box.admit(folder)
        return folder.name

    def discard(self, folder: str) -> None:
        """Remove a staged submission folder."""
        staging.discard(self.setup.box.submissions / folder)

    def _launch(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self.restarts += 1
        self._worker = WorkerProcess(self.setup, self.memory_mb, self.output)
        self._live = None
        self._ready = False

    def _ensure_ready(self) -> WorkerProcess:
        if self._worker is None or self._worker.proc.poll() is not None or self._worker.killed_by_us:
            self._launch()
        if not self._ready:
            try:
                header, _ = self._worker.receive(time.monotonic() + STARTUP_SECONDS)
            except (TimeoutError, EOFError, wire.WireError) as exc:
                self._worker.kill()  # which also collects what it printed before it ended
                output = self.output.fed_since(self._worker.started_at)
                raise SandboxFault(errors.worker_not_started(type(exc).__name__, output, sys.executable)) from None
            if not header.get("ready"):
                raise SandboxFault("the grading worker sent an unexpected greeting")
            if header.get("fault"):  # said before any student code ran: the only fault the grader believes
                self._worker.kill()
                raise SandboxFault(f"the sandbox could not confine the worker: {str(header['fault'])[:2000]}")
            self._worker.inside_pid = header.get("pid")
            self._worker.host_pid = self._worker._host_pid()
            self._worker.note_start()
            self.grouped = self._worker.cpu_group is not None
            self._ready = True
        return self._worker

    def start_note(self) -> str:
        """How this session's workers start and where their calls' CPU is read, for the staff's notes."""
        if self.setup.forked:
            started = f"workers: {zygote.describe()}"
        else:
            started = f"workers: a fresh Python each, which imports torch itself ({self.setup.fresh_reason})"
        counted = ("counted in a cgroup of its worker's own (every process it started, reaped or not)" if self.grouped
                   else "read in /proc (no cgroup of the worker's own here)")
        return f"{started}; a call's CPU: {counted}"

    def start(self) -> None:
        """Start the worker now (so torch loads while the grader prepares)."""
        if self._worker is None:
            self._begin()

    def _begin(self) -> None:
        if self.setup.forked:  # the zygote imports torch while the grader prepares; the fork comes with the first call
            zygote.start_soon(self.setup.interpreter)
        else:
            self._launch()

    def settle_output(self) -> None:
        """Make sure what the worker printed so far has been collected."""
        if self._worker is not None:
            self._worker.settle_output()

    def switch(self, folder: str) -> None:
        """Serve the submission staged in ``submission/folder`` next, keeping the worker (and its torch)."""
        self.settle_output()
        self.folder = folder
        self.output.clear()
        self.broken, self.exchanges = {}, []

    def import_module(self, module: str, seconds: float, backstop: float | None = None) -> None:
        """Import ``module`` in the worker (in a fresh child); raise ``StudentCallError`` if that fails."""
        if module in self.broken:
            raise StudentCallError(self.broken[module], "import")
        worker = self._ensure_ready()
        if (self.folder, module) == self._live:
            return
        if self._live is not None:
            worker = self._reset()
        request = {"op": "import", "module": module} | ({"folder": self.folder} if self.folder else {})
        allowed = environment.student_libraries()
        request |= (
            {"allowed": list(allowed)} if allowed else {}
        )  # none found: no guard, rather than refusing numpy and torch
        header = self._exchange(worker, request, [], seconds, f"importing {module}.py", backstop)
        self._live = (self.folder, module)  # even after a failed import the module's child stays until the next reset
        if not header.get("ok"):
            self.broken[module] = import_failure(module, header.get("error", {}))
            raise StudentCallError(self.broken[module], "import")

    def fresh(self, module: str) -> None:
        """End ``module``'s process (and all it started, and what it wrote) so that its next call starts a fresh one."""
        if self._live == (self.folder, module) and self._worker is not None and not self._worker.killed_by_us:
            self._reset()

    def _reset(self) -> WorkerProcess:
        """End the current module's child and whatever it started, then check in /proc, without asking the worker, that
        the next test starts as the first did; replace the worker if not. The module pays for what it cost."""
        worker, rid, start = self._worker, next(self._ids), time.monotonic()
        module = self._live[1] if self._live is not None else None
        failed = True
        try:
            worker.send({"op": "reset", "id": rid}, [], start + RESET_SECONDS)
            header, _ = worker.receive(start + RESET_SECONDS, watch=worker.first_process_stopped)
            failed = not (header.get("reset") and header.get("id") == rid) or worker.unrestored() is not None
        except (TimeoutError, EOFError, OSError, wire.WireError, Overuse):
            pass
        if failed:
            self._launch()
            worker = self._ensure_ready()
        worker.cpu_mark = None  # what the ended test's processes ran until the reset is not the next test's
        self._live = None
        if module is not None:
            seconds = time.monotonic() - start
            self.exchanges.append(
                Exchange(
                    module,
                    "reset",
                    "",
                    seconds if failed else max(seconds - RESET_FREE_SECONDS, 0.0),
                    self._limits.get(module, RESET_SECONDS),
                    failed,
                )
            )
        return worker

    def call(
        self,
        module: str,
        func: str,
        args: tuple,
        kwargs: dict,
        seconds: float,
        shown: str,
        meter: dict | None = None,
        backstop: float | None = None,
    ) -> Any:
        """Run ``module.func(*args, **kwargs)`` in the worker within ``seconds`` (``backstop``: of wall clock, instead
        of ``WALL_BACKSTOP`` x ``seconds``); return plain data."""
        try:
            self.import_module(module, seconds, backstop)
        except StudentCallError as exc:
            if exc.kind == "import" and module not in self.broken:
                self.broken[module] = str(exc)
            raise
        worker = self._ensure_ready()
        tree, blobs = codec.encode_call(args, kwargs)
        header = self._exchange(
            worker,
            {"op": "call", "module": module, "func": func, "args": tree}
            | ({"meter": meter} if meter is not None else {}),
            blobs,
            seconds,
            shown,
            backstop,
        )
        overused = self.setup.scratch_overused(
            worker.host_pid
        )  # also after every call: a thread may write between the watch's samples
        if overused:
            self._reset()
            raise StudentCallError(f"{shown} {overused} and was stopped.", errors.RESOURCE)
        if meter is not None and isinstance(header.get("metered"), dict):
            # What decides a verdict of cost is measured outside the student's process: the CPU time of everything the
            # call ran, and whether the worker's first process capped its memory with a hard limit.
            cpu = self.exchanges[-1].cpu
            if cpu is not None:
                header["metered"]["cpu_seconds"] = round(cpu, 6)
            if "memory_capped" in header["metered"]:
                header["metered"]["memory_capped"] = header.get("capped") is True
        return errors.answer(shown, header, meter)

    def _exchange(self, worker: WorkerProcess, request: dict, blobs: list, seconds: float, shown: str,
                  backstop: float | None = None) -> dict:
        # From where the last exchange ended (one reading of /proc fewer per call): what the student's processes ran
        # between two calls (a thread of its own, say) is theirs too.
        cpu_start = worker.cpu_mark if worker.cpu_mark is not None else worker.tree_cpu()
        # The limit is CPU time of everything the call runs, read in /proc by the grader; the wall clock only stops a
        # call that sleeps or blocks. Where /proc cannot say, the limit is wall clock.
        cpu_limit, wall = (
            (None, seconds) if cpu_start is None else (seconds * CPU_SHARE, backstop or seconds * WALL_BACKSTOP)
        )
        request = dict(request, id=next(self._ids), limit=wall) | (
            {"cpu_limit": cpu_limit} if cpu_limit is not None else {}
        )
        self._limits[request["module"]] = seconds
        start, printed = time.monotonic(), self.output.fed
        stopped, waited = True, 0.0

        def watch() -> str | None:
            if cpu_limit is not None and (now := worker.tree_cpu()) is not None and now - cpu_start >= cpu_limit:
                raise CpuLimitReached(now - cpu_start)
            return self.setup.scratch_overused(worker.host_pid)

        try:
            worker.send(request, blobs, start + wall)
            header, out_blobs = worker.receive(start + wall, watch=watch)
            if header.get("id") != request["id"]:
                raise wire.WireError("a reply that does not answer this request")
            if "ended" in header:  # the module's process ended; the worker lives on and the call costs what it took
                stopped = False
                raise ModuleEnded(header["ended"])
            if any(k in header for k in ("reset", "interrupted", "ready", "fault")):
                raise wire.WireError("a reply of a kind this request cannot have")
            if request["op"] == "call" and header.get("ok") and "value" not in header:
                raise wire.WireError("a reply without a value")
            if "unreadable" in header:  # the worker ended the module's process, which wrote on its reply pipe
                raise UnreadableReply(str(header["unreadable"])[:200])
            if "value" in header:
                header["value_decoded"] = codec.decode_value(header["value"], out_blobs)
            stopped, waited = not self._ended(worker, "replied"), waited_seconds(header)
            return header
        except TimeoutError as exc:
            took = time.monotonic() - start
            waited = worker.stopped_waited if self._ended(worker, "stopped") else 0.0
            self.settle_output()  # the stack the module's process wrote just before its limit
            self._mark_if_import(request, f"{shown} did not finish within {seconds:g} s; it was stopped")
            used = exc.cpu if isinstance(exc, CpuLimitReached) else None
            if used is None and cpu_start is not None and (now := worker.tree_cpu()) is not None:
                used = now - cpu_start
            if (
                worker.stopped_runnable and used is not None
            ):  # still waiting for a CPU when stopped: what it did not run
                waited = max(waited, min(took - used, took))
            limit = errors.TimeLimit(seconds, cpu_limit, took, used, by_cpu=isinstance(exc, CpuLimitReached))
            raise errors.timed_out(
                shown, limit, self.output.stopped_at(printed), self.folder, self.output.fed - printed, waited
            ) from None
        except Overuse as exc:
            stopped = not self._ended(
                worker, "stopped"
            )  # only the module's process ended: the call costs the time it took
            self._mark_if_import(request, f"{shown} {exc}; it was stopped")
            raise StudentCallError(f"{shown} {exc} and was stopped.", errors.RESOURCE) from None
        except ModuleEnded as exc:
            stopped = not self._ended(worker, "ended")  # a fresh worker: the full limit pays for the restart
            what = how_it_ended(exc.code) if type(exc.code) is int else "ended"
            self._mark_if_import(request, f"the process {what} while {shown}")
            raise errors.crashed(shown, what) from None
        except (EOFError, BrokenPipeError, OSError):
            what = worker.exit_description()
            self._ended(worker, "lost")
            self._mark_if_import(request, f"the process {what} while {shown}")
            raise errors.crashed(shown, what) from None
        except (wire.WireError, KeyError, ValueError, TypeError) as exc:
            # The worker ended the module's process that wrote on its reply pipe (``UnreadableReply``): not stopped at
            # its limit, the call costs the time it took; any other unreadable reply is the worker's own: it goes.
            stopped = not self._ended(worker, "ended" if isinstance(exc, UnreadableReply) else "lost")
            self._mark_if_import(request, f"{shown} sent back something unreadable")
            raise errors.unreadable(shown, exc) from None
        finally:
            took = (
                time.monotonic() - start
            )  # the first process's window lies inside this one, give or take its rounding
            now = worker.cpu_mark = worker.tree_cpu() if cpu_start is not None else None
            self.exchanges.append(
                Exchange(
                    request["module"],
                    request["op"],
                    request.get("func", ""),
                    took,
                    seconds,
                    stopped,
                    min(waited, took),
                    None if now is None else max(now - cpu_start, 0.0),
                )
            )

    def _ended(self, worker: WorkerProcess, how: str) -> bool:
        """The one path every way a call ends takes before the next call; True when the worker is kept.

        ``replied``: the module's process lives on (it serves the module's next call) and the box's modes are put back;
        ``stopped``: at its limit or for overuse, the module's child is interrupted first; ``ended``: the worker ended
        the module's process (it exited, crashed, or wrote on its reply pipe); then the grader's own check (as after a
        reset) decides whether the worker may serve the next call; ``lost``: the worker itself failed, a fresh one
        follows."""
        if how == "replied":
            self.setup.box.restore_modes()  # student code running as the grader's own user may chmod the box's files
            return True
        self._live = None
        if how == "stopped" and not worker.interrupt():
            how = "lost"
        if how != "lost" and worker.unrestored() is None:
            return True
        worker.kill()
        return False

    def _mark_if_import(self, request: dict, text: str) -> None:
        if request.get("op") == "import":
            self.broken[request["module"]] = errors.broken_import(request["module"], text)

    def close(self) -> None:
        """Kill the worker and everything it started; free its uid and remove its box."""
        if self._worker is not None:
            self._worker.kill()
            self._worker = None
        self.setup.close()
