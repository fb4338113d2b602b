"""The worker: the only process that imports and runs student code.

Started by ``autograder.sandbox.client`` (inside bubblewrap where available) as
``python -I -B worker.py --submission DIR ...``. Before importing anything a student wrote it
volunteers to be the first the OOM killer picks, drops to the sandbox uid, dies with the
grader, adopts every orphan of its tree (child subreaper) and sets its limits; each module's
child then confines itself (Landlock, seccomp; see ``confine``) before the import. It answers
requests on two pipe fds: ``import`` a module, ``call`` a function. Replies hold only plain
data (see ``wire``).

The first process never runs student code: each ``import`` forks a child that imports the
module and answers the calls into it until the grader sends ``reset``. So what one module
does to the interpreter (patching torch, changing defaults, starting threads) cannot reach
the next module, and after each module its leftover processes are killed: every process of
the sandbox uid (a uid of this worker's own) or of the PID namespace, or else every
descendant, which the subreaper sees even after it left the process group. On SIGUSR1 (a call
ran out of time) the child is killed and the grader told, so a timeout costs no new worker.
If the child dies any other way, this process dies the same way, and the grader reads how.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

MAX_TEXT = 4000
MAX_REPLY_BYTES = 256 << 20  # arrays in one reply (the wire allows twice that per message)
WORKER_BROKEN = 70  # the child's own serving code failed (e.g. the module replaced Python built-ins)


PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def volunteer_for_oom(score: int) -> None:
    """Be the OOM killer's first choice (children inherit it; set as root, student code cannot lower it)."""
    try:
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write(str(score))
    except OSError:
        pass


def drop_privileges(uid: int, gid: int) -> None:
    """Become ``uid``/``gid`` for good (real, effective and saved ids), dropping all capabilities."""
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SystemExit("could not drop privileges")


def set_limits(memory_mb: int, max_processes: int, max_file_mb: int, own_uid: bool, max_open_files: int = 256) -> None:
    """Cap address space, process count, file size, open files and core dumps for this process tree."""
    import resource

    cap = _cap
    if memory_mb > 0:
        cap(resource.RLIMIT_AS, memory_mb << 20)
    if max_processes > 0 and os.getuid() != 0:
        # The limit counts every process and thread of the real uid: a uid shared with other programs
        # (a staff member grading as themselves) keeps what it runs already.
        cap(resource.RLIMIT_NPROC, max_processes + (0 if own_uid else _tasks_of(os.getuid())))
    cap(resource.RLIMIT_FSIZE, max_file_mb << 20)
    cap(resource.RLIMIT_NOFILE, max_open_files)  # also bounds memory held in memfd files (each at most max_file_mb)
    cap(resource.RLIMIT_CORE, 0)


def _cap(which: int, value: int) -> None:
    """Set a resource limit (soft and hard), never above a hard limit already in force."""
    import resource

    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


# Where /proc cannot say what the imports took: torch 2.13's CPU build on Linux x86_64 (bench/bench_worker_memory.py).
ASSUMED_START_MB = 600


def address_space_mb() -> int | None:
    """This process's address space now (VmSize), or None where /proc does not say."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) >> 10
    except (OSError, ValueError, IndexError):
        pass
    return None


def cap_address_space(room_mb: int) -> None:
    """Let student code add ``room_mb`` of address space to what this worker holds after its imports (0: no cap)."""
    if room_mb > 0:
        import resource

        _cap(resource.RLIMIT_AS, (room_mb + (address_space_mb() or ASSUMED_START_MB)) << 20)


def describe_exception(exc: BaseException, submission: str) -> dict:
    """The error as the student should see it: type, message, and only their own frames."""
    tb = traceback.TracebackException.from_exception(exc, limit=50)
    own = [f for f in tb.stack if f.filename.startswith(submission)]
    for frame in own:  # the student knows the file by its name, not by where the grader staged it
        frame.filename = os.path.basename(frame.filename)
    if getattr(tb, "filename", None) and tb.filename.startswith(submission):  # a SyntaxError's own location
        tb.filename = os.path.basename(tb.filename)
    tb.stack = traceback.StackSummary.from_list(own)
    text = "".join(tb.format())
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT // 2] + "\n...\n" + text[-MAX_TEXT // 2 :]
    try:
        message = str(exc)
    except BaseException:
        message = "<unprintable exception>"
    return {"type": type(exc).__name__, "message": message[:MAX_TEXT], "traceback": text}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--submission", required=True)
    parser.add_argument("--fd-in", type=int, required=True)
    parser.add_argument("--fd-out", type=int, required=True)
    parser.add_argument("--uid", type=int, default=-1)
    parser.add_argument("--gid", type=int, default=-1)
    parser.add_argument("--memory-mb", type=int, default=0)
    parser.add_argument("--max-processes", type=int, default=256)
    parser.add_argument("--max-file-mb", type=int, default=64)
    parser.add_argument("--cleanup", choices=("namespace", "uid", "descendants"), default="descendants",
                        help="which leftovers are ours: the PID namespace's, the sandbox uid's, or our descendants")
    parser.add_argument("--scratch", required=True, help="the one folder student code may write (wiped between submissions)")
    parser.add_argument("--landlock", action="append", default=None, metavar="PATH",
                        help="confine each module with Landlock; PATH may be read (repeatable)")
    parser.add_argument("--seccomp", action="store_true", help="load the syscall filter in each module's child")
    parser.add_argument("--oom-score-adj", type=int, default=1000)
    args = parser.parse_args()

    parent = os.getppid()
    volunteer_for_oom(args.oom_score_adj)
    if args.uid >= 0:
        drop_privileges(args.uid, args.gid)
    _die_with_parent(parent)  # after the uid change, which clears the parent-death signal
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of the module's processes come back to us, not to init
    # Address space is capped after the imports: what torch takes depends on its build (CPU 0.6 GB, CUDA 3 GB).
    set_limits(0, args.max_processes, args.max_file_mb, own_uid=args.cleanup != "descendants")

    import callables
    import cleanup
    import numpy as np
    import torch
    import wire

    torch.set_num_threads(1)
    if args.seccomp:
        import pyseccomp  # noqa: F401 - finds and loads libseccomp now: a module's child may not be able to fork ldconfig
    if args.landlock is not None:
        import landlockpy  # noqa: F401
    cap_address_space(args.memory_mb)
    fd_in, fd_out = args.fd_in, args.fd_out
    submission = os.path.abspath(args.submission)
    sys.path.insert(0, submission)
    os.chdir(submission)
    modules: dict[str, object] = {}

    def to_array(v):
        if isinstance(v, torch.Tensor):
            with torch._C.DisableTorchFunction():
                t = torch.Tensor.detach(v).cpu()
                if t.is_complex():
                    return None
                _check_size(torch.Tensor.numel(t) * torch.Tensor.element_size(t))
                return torch.Tensor.numpy(t.resolve_conj().resolve_neg()).copy(), "tensor"
        if isinstance(v, np.ndarray):
            _check_size(np.ndarray.__dict__["nbytes"].__get__(v))
            return np.array(v, subok=False, copy=True), "ndarray"
        if isinstance(v, np.generic):
            return np.asarray(v.item() if isinstance(v, (np.integer, np.bool_)) else v), "scalar"
        return None

    def plain(v):
        # numpy/torch integer scalars become Python ints so exact answers compare exactly
        if isinstance(v, (np.integer, np.bool_)):
            return v.item()
        if isinstance(v, torch.Tensor) and v.dim() == 0 and not v.is_floating_point() and not v.is_complex():
            return v.item()
        return v

    make = {
        "tensor": lambda a: torch.from_numpy(a.copy()),
        "generator": lambda seed: torch.Generator().manual_seed(seed),
        "named": callables.build,
    }

    def reply(header: dict, blobs: list | None = None) -> None:
        _flush_output()  # what the code printed reaches the grader before the reply does
        wire.write_message(fd_out, dict(header, id=current_id[0]), blobs or [])

    current_id = [None]

    def handle(request: dict, blobs: list) -> None:
        current_id[0] = request.get("id")
        op = request.get("op")
        if op == "import":
            name = request["module"]
            folder = os.path.join(submission, _folder_name(request.get("folder")))
            sys.path.insert(0, folder)  # this runs in the module's own child, so nothing leaks to the next
            os.chdir(folder)
            path = os.path.join(folder, name + ".py")
            start = time.perf_counter()
            try:
                spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
                modules[name] = module
                reply({"ok": True, "seconds": time.perf_counter() - start})
            except BaseException as exc:  # noqa: BLE001 - a student module may raise anything
                sys.modules.pop(name, None)
                reply({"ok": False, "error": describe_exception(exc, submission)})
            return
        if op == "call":
            module = modules.get(request["module"])
            func = getattr(module, request["func"], None) if module is not None else None
            if not callable(func):
                reply({"ok": False, "error": {"type": "AttributeError", "traceback": "",
                       "message": f"module {request['module']} has no function {request['func']}()"}})
                return
            call_args, call_kwargs = wire.decode(request["args"], blobs, make)
            start = time.perf_counter()
            try:
                result = func(*call_args, **call_kwargs)
            except BaseException as exc:  # noqa: BLE001
                reply({"ok": False, "error": describe_exception(exc, submission)})
                return
            seconds = time.perf_counter() - start
            try:
                tree, out_blobs = wire.encode(_map(result, plain), to_array)
                _check_size(sum(b.nbytes for b in out_blobs))
            except BaseException as exc:  # noqa: BLE001 - a hostile return value may raise on inspection
                reply({"ok": False, "error": {"type": "BadReturnValue", "traceback": "",
                       "message": f"the returned value could not be read: {type(exc).__name__}: {_text(exc)}"}})
                return
            reply({"ok": True, "value": tree, "seconds": seconds}, out_blobs)
            return
        if op == "ping":
            reply({"ok": True})
            return
        reply({"ok": False, "error": {"type": "ProtocolError", "message": f"unknown op {op!r}", "traceback": ""}})

    def serve_module(request: dict, blobs: list, reset_w: int) -> None:
        """In the forked child: import the module, then answer calls until ``reset``."""
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        os.setpgid(0, 0)  # the module's own processes can be killed as a group afterwards
        _die_with_parent(zygote)
        if not _confine(args, request):
            return
        handle(request, blobs)
        while True:
            try:
                request, blobs = wire.read_message(fd_in)
            except EOFError:
                os._exit(0)
            if request.get("op") == "reset":
                _flush_output()
                os.write(reset_w, json.dumps(request.get("id")).encode())
                os._exit(0)
            handle(request, blobs)

    def run_module(request: dict, blobs: list) -> None:
        """Fork a child for one module; after a clean reset acknowledge it, else die as the child died."""
        reset_r, reset_w = os.pipe()
        os.set_blocking(reset_r, False)
        interrupted[0] = False
        pid = _fork()
        if pid == 0:
            os.close(reset_r)
            try:
                serve_module(request, blobs, reset_w)
            finally:
                os._exit(WORKER_BROKEN)
        try:
            os.setpgid(pid, pid)  # also here, so that an interrupt right after the fork finds the group
        except OSError:
            pass
        child[0] = pid
        os.close(reset_w)
        _, status = os.waitpid(pid, 0)
        child[0] = 0
        try:
            note = os.read(reset_r, 64)
        except BlockingIOError:
            note = b""
        os.close(reset_r)
        _kill_leftovers(pid, args.cleanup)
        if note:
            try:
                current_id[0] = json.loads(note)
            except ValueError:
                current_id[0] = None
            reply({"ok": True, "reset": True})
        elif interrupted[0]:
            _discard_input(fd_in)  # the rest of a request the child was reading (or was sent only in part)
            current_id[0] = None
            reply({"ok": True, "interrupted": True})
        else:
            _die_like(status)

    child, interrupted, zygote = [0], [False], os.getpid()

    def on_interrupt(signum, frame) -> None:
        interrupted[0] = True
        if child[0]:
            try:
                os.killpg(child[0], signal.SIGKILL)
            except OSError:
                try:
                    os.kill(child[0], signal.SIGKILL)
                except OSError:
                    pass

    signal.signal(signal.SIGUSR1, on_interrupt)

    reply({"ok": True, "ready": True, "pid": os.getpid()})
    while True:
        try:
            request, blobs = wire.read_message(fd_in)
        except EOFError:
            os._exit(0)
        if request.get("op") == "import":
            # A new module starts with nothing the previous one (or submission) wrote: not in the scratch folder and,
            # with a uid of its own, not in the folders every user may write.
            cleanup.remove_tree(args.scratch, keep_folder=True)
            if args.cleanup == "uid":
                cleanup.remove_entries(cleanup.entries_owned_by(os.getuid()))
            run_module(request, blobs)
        elif request.get("op") == "reset":
            current_id[0] = request.get("id")
            reply({"ok": True, "reset": True})
        elif request.get("op") == "call":
            current_id[0] = request.get("id")
            reply({"ok": False, "error": {"type": "ProtocolError", "message": "no module is imported", "traceback": ""}})
        else:
            handle(request, blobs)


def _folder_name(folder) -> str:
    """A submission's folder under the bound root: one plain name, or the root itself."""
    if folder is None:
        return ""
    if not isinstance(folder, str) or not folder or folder.startswith(".") or "/" in folder or "\0" in folder:
        raise ValueError(f"bad submission folder {folder!r}")
    return folder


def _confine(args, request: dict) -> bool:
    """Apply the kernel layers in this module's child; on failure tell the grader (its fault, not the student's)."""
    import confine
    import wire

    try:
        if args.landlock is not None:
            confine.apply_landlock(args.landlock, [args.scratch])
        if args.seccomp:
            confine.apply_seccomp()
        return True
    except confine.ConfineError as exc:
        wire.write_message(args.fd_out, {"id": request.get("id"), "ok": False, "fault": str(exc)}, [])
        return False


def _tasks_of(uid: int) -> int:
    """Processes and threads the real uid ``uid`` runs now (what RLIMIT_NPROC counts)."""
    count = 0
    for entry in _proc_entries():
        try:
            with open(f"/proc/{entry}/status", "rb") as f:
                fields = dict(line.split(b":", 1) for line in f if b":" in line)
            if int(fields[b"Uid"].split()[0]) == uid:
                count += int(fields.get(b"Threads", b"1"))
        except (OSError, ValueError, KeyError, IndexError):
            continue
    return count


def _check_size(nbytes: int) -> None:
    limit = MAX_REPLY_BYTES
    if nbytes > limit:
        raise ValueError(f"it holds {nbytes} bytes of arrays, more than the {limit} allowed")


def _die_with_parent(parent: int) -> None:
    """SIGKILL this process as soon as ``parent`` dies (so a module that kills the worker stops at once)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(WORKER_BROKEN)


def _discard_input(fd: int) -> None:
    os.set_blocking(fd, False)
    try:
        while os.read(fd, 1 << 16):
            pass
    except BlockingIOError:
        pass
    finally:
        os.set_blocking(fd, True)


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - student code may have replaced or closed the stream
            pass


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:MAX_TEXT]
    except BaseException:  # noqa: BLE001
        return "<unprintable>"


def _fork() -> int:
    # Processes just killed may still count against the process limit until they are reaped.
    for _ in range(50):
        try:
            return os.fork()
        except BlockingIOError:
            time.sleep(0.1)
    return os.fork()


def _kill_leftovers(pgid: int, cleanup: str) -> None:
    """Kill what a module left running and reap it, waiting (up to 5 s) until nothing is left, so the
    next module starts with a clean slate and its process limit is not spent on zombies."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
    end = time.monotonic() + 5
    while True:
        if cleanup == "descendants":
            for pid in _children():
                for kill in (os.killpg, os.kill):
                    try:
                        kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
        else:
            try:
                os.kill(-1, signal.SIGKILL)  # every process we may signal: the namespace's or the uid's, not us
            except OSError:
                pass
        _reap()
        if not _others_alive(cleanup) or time.monotonic() > end:
            return
        time.sleep(0.01)


def _proc_entries() -> list[str]:
    """Process ids in /proc ([] where there is no /proc: the process group is then all we can end)."""
    try:
        return [entry for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []


def _children() -> list[int]:
    me = str(os.getpid()).encode()
    found = []
    for entry in _proc_entries():
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    if f.read().rsplit(b")", 1)[1].split()[1] == me:
                        found.append(int(entry))
            except (OSError, IndexError):
                continue
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _others_alive(cleanup: str) -> bool:
    if cleanup == "descendants":
        return bool(_children())
    me, uid = os.getpid(), os.getuid()
    for entry in _proc_entries():
        if int(entry) in (1, me):
            continue
        if cleanup == "namespace":
            return True
        try:
            with open(f"/proc/{entry}/status", "rb") as f:
                if any(line.startswith(b"Uid:") and int(line.split()[1]) == uid for line in f):
                    return True
        except (OSError, ValueError, IndexError):
            continue
    return False


def _die_like(status: int) -> None:
    """End this process the way the child ended, so the grader can tell the student how."""
    _flush_output()
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), sig)
        time.sleep(1)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _map(value, fn, depth: int = 0):
    """Apply ``fn`` to the leaves of plain containers (lists, tuples, sets, dicts)."""
    if depth > 16:
        return value
    if isinstance(value, list):
        return [_map(v, fn, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(_map(v, fn, depth + 1) for v in value)
    if isinstance(value, (set, frozenset)):
        return {_map(v, fn, depth + 1) for v in value}
    if isinstance(value, dict):
        return {fn(k): _map(v, fn, depth + 1) for k, v in dict.items(value)}
    return fn(value)


if __name__ == "__main__":
    main()
