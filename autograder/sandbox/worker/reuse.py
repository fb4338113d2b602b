"""Whether the portable worker's process may serve the next module as a fresh one would, and making it so.

On the portable path (a self-check on macOS or Windows) each process imports torch, which is most of what a check costs.
So one process serves the modules in turn, each only while the module before left nothing that the next one's results
could depend on. ``Baseline`` is taken once torch is imported; before the next module it is compared with the process:

- what ordinary code changes by accident or on purpose: torch's and numpy's settings (default dtype, grad mode,
  deterministic algorithms, threads, modes on the torch-function and dispatch stacks, print options, numpy's error
  handling), the dispatcher's operators, kernels and fallbacks (a ``torch.library`` kernel put in place of aten's, a
  custom op) and the thread's dispatch keys, any attribute of torch, torch.Tensor, numpy, math, builtins and the other
  libraries listed below (a function replaced, say), threads left running, signal handlers, the environment, the
  interpreter's hooks;
- what the serving itself changes is restored, not compared: the import path, the import guard, the working folder,
  and the random states of torch, numpy and ``random`` (a fresh process starts with the same ones).

Any difference and the process is replaced. It is a list, not a proof: a change it does not name stays, as state kept
between the tests of one module always has on this path. Grading never reuses a process: each test has one of its own.
"""

from __future__ import annotations

import atexit
import builtins
import gc
import importlib
import os
import signal
import sys
import warnings
from typing import Any

# Libraries whose attributes student code reaches; a new attribute that is a module is a lazy import, not a change.
WATCHED = (
    "builtins",
    "math",
    "cmath",
    "random",
    "operator",
    "functools",
    "itertools",
    "os",
    "time",
    "numpy",
    "numpy.linalg",
    "numpy.random",
    "numpy.fft",
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "torch.autograd",
    "torch.random",
    "torch.distributions",
)
WATCHED_CLASSES = ("torch.Tensor", "torch.nn.Module", "numpy.ndarray")


def _namespaces() -> dict[str, dict]:
    found = {}
    for name in WATCHED:
        module = sys.modules.get(name)
        if module is not None:
            found[name] = vars(module)
    for dotted in WATCHED_CLASSES:
        owner, _, attr = dotted.rpartition(".")
        cls = getattr(sys.modules.get(owner), attr, None)
        if isinstance(cls, type):
            found[dotted] = dict(vars(cls))
    return found


def _identities(namespaces: dict[str, dict]) -> dict[str, dict[str, int]]:
    return {space: {key: id(value) for key, value in list(names.items())} for space, names in namespaces.items()}


def _settings(loaded: frozenset[str]) -> dict[str, Any]:
    """The values of the process-wide settings a module's results may depend on."""
    import numpy as np
    import torch

    found: dict[str, Any] = {}

    def read(name: str, getter) -> None:  # noqa: ANN001 - a function of no arguments
        try:
            found[name] = getter()
        except Exception as exc:  # noqa: BLE001 - a setting this build lacks is compared as its error
            found[name] = f"unreadable: {type(exc).__name__}"

    read("torch default dtype", torch.get_default_dtype)
    read("torch grad mode", torch.is_grad_enabled)
    read("torch inference mode", torch.is_inference_mode_enabled)
    read("torch deterministic algorithms", lambda: (torch.are_deterministic_algorithms_enabled(),
                                                    torch.is_deterministic_algorithms_warn_only_enabled()))
    read("torch threads", lambda: (torch.get_num_threads(), torch.get_num_interop_threads()))
    read("torch float32 matmul precision", torch.get_float32_matmul_precision)
    read("torch anomaly detection", torch.is_anomaly_enabled)
    read("torch default device", lambda: str(torch.get_default_device()))
    read("torch function modes", torch._C._len_torch_function_stack)
    read("torch dispatch modes", torch._C._len_torch_dispatch_stack)
    read("torch print options", lambda: dict(vars(torch._tensor_str.PRINT_OPTS)))
    read("torch mkldnn", torch._C._get_mkldnn_enabled)
    read("torch dispatcher", lambda: _dispatcher(torch))
    read("torch dispatch keys", lambda: (str(torch._C._dispatch_tls_local_include_set()),
                                         str(torch._C._dispatch_tls_local_exclude_set())))
    read("torch autograd fallback", torch._C._get_autograd_fallback_mode)
    read("numpy error handling", np.geterr)
    read("numpy print options", np.get_printoptions)
    read("threads", _thread_count)
    read("signal handlers", lambda: {int(s): id(signal.getsignal(s)) for s in signal.valid_signals() if _readable(s)})
    read("environment", lambda: dict(os.environ))
    read("exit handlers", atexit._ncallbacks)
    read("garbage collector", lambda: (gc.isenabled(), gc.get_threshold(), len(gc.callbacks)))
    read("warnings filters", lambda: (list(warnings.filters), id(warnings.showwarning)))
    read(
        "interpreter hooks",
        lambda: (
            sys.gettrace(),
            sys.getprofile(),
            sys.getrecursionlimit(),
            sys.getswitchinterval(),
            id(sys.displayhook),
            id(sys.excepthook),
            id(sys.stdout),
            id(sys.stderr),
            id(sys.stdin),
            list(map(id, sys.path_hooks)),
        ),
    )
    read("loaded libraries", lambda: {name: id(module) for name, module in list(sys.modules.items()) if name in loaded})
    return found


def _dispatcher(torch: Any) -> tuple:
    """What the dispatcher holds that a module could change for the next: its operators (a custom op), every operator's
    kernels (a ``torch.library`` kernel put in place of aten's), the extensions loaded and the backend fallbacks."""
    keys = [getattr(torch._C.DispatchKey, k) for k in dir(torch._C.DispatchKey) if not k.startswith("_")]
    fallbacks = tuple(
        str(k) for k in keys if isinstance(k, torch._C.DispatchKey) and torch._C._dispatch_has_backend_fallback(k)
    )
    names = tuple(sorted(torch._C._dispatch_get_all_op_names()))
    return hash(names), _kernels(torch, names), len(getattr(torch.ops, "loaded_libraries", ())), fallbacks


_LIBRARIES_MADE = [0]
_KERNELS_AT_START: list[int] = []  # every operator's kernels as first read, while no library had been made


def _kernels(torch: Any, names: tuple[str, ...]) -> int:
    """A digest of every operator's kernels. Every ``torch.library`` kernel, op or fallback is registered through a
    library made after torch's import, so while none has been made they are as first read: reading them all takes about
    0.24 s, counting costs nothing. Once one was made they are read each time (one destroyed again reads as before)."""
    if _libraries_made(torch) == 0 and _KERNELS_AT_START:
        return _KERNELS_AT_START[0]
    digest = hash(tuple(torch._C._dispatch_dump(name) for name in names))
    if _libraries_made(torch) == 0:
        _KERNELS_AT_START.append(digest)
    return digest


def _libraries_made(torch: Any) -> int:
    """How many dispatcher libraries were made since the first call, which puts a counter in front of their maker."""
    make = torch._C._dispatch_library
    if not getattr(make, "autograder_counts", False):

        def counted(*args: Any, **kwargs: Any) -> Any:
            _LIBRARIES_MADE[0] += 1
            return make(*args, **kwargs)

        counted.autograder_counts = True
        torch._C._dispatch_library = counted
    return _LIBRARIES_MADE[0]


def _readable(signum: signal.Signals) -> bool:
    try:
        signal.getsignal(signum)
    except (OSError, ValueError):
        return False
    return True


def _thread_count() -> int:
    import _thread

    return _thread._count()  # every thread started through _thread, threading's too


class Baseline:
    """The process as the first module found it."""

    def __init__(self) -> None:
        for name in WATCHED:  # loaded now (numpy's random and fft load lazily), so that a change by any module is seen
            try:
                importlib.import_module(name)
            except ImportError:
                pass
        self.loaded = frozenset(sys.modules)
        self.identities = _identities(_namespaces())
        self.settings = _settings(self.loaded)
        self.path = list(sys.path)
        self.meta_path = list(sys.meta_path)
        self.importer = builtins.__import__
        self.cwd = os.getcwd()
        self.random_states = _random_states()

    def changes(self, own_threads: int = 0) -> list[str]:
        """What differs from the baseline (``own_threads``: threads the serving itself started since), worded for a
        log."""
        found = []
        namespaces = _namespaces()
        now = _identities(namespaces)
        for space, before in self.identities.items():
            after = now.get(space, {})
            for key, ident in before.items():
                if after.get(key) != ident:
                    found.append(f"{space}.{key} was replaced" if key in after else f"{space}.{key} was deleted")
            found += [f"{space}.{key} was added" for key in after.keys() - before.keys()
                      if not isinstance(namespaces[space].get(key), type(sys))]
        settings = _settings(self.loaded)
        settings["threads"] = (
            settings["threads"] - own_threads if isinstance(settings["threads"], int) else settings["threads"]
        )
        for name, value in self.settings.items():
            now_value = settings.get(name)
            if now_value != value:
                keys = []
                if isinstance(value, dict) and isinstance(now_value, dict):
                    keys = sorted(str(k) for k in value.keys() | now_value.keys() if value.get(k) != now_value.get(k))[
                        :5
                    ]
                found.append(f"{name} changed" + (f" ({', '.join(keys)})" if keys else ""))
        return found

    def restore(self, submission: str) -> None:
        """Forget every module of ``submission`` and undo what serving a module changes itself."""
        root = os.path.join(os.path.abspath(submission), "")
        for name, module in list(sys.modules.items()):
            where = getattr(module, "__file__", None)
            if (
                isinstance(where, str) and os.path.isabs(where) and where.startswith(root)
            ):  # torch.ops has a relative one
                del sys.modules[name]
        for key in [k for k in sys.path_importer_cache if isinstance(k, str) and os.path.join(k, "").startswith(root)]:
            del sys.path_importer_cache[key]
        sys.path[:] = self.path
        sys.meta_path[:] = self.meta_path
        builtins.__import__ = self.importer
        os.chdir(self.cwd)
        importlib.invalidate_caches()
        _set_random_states(self.random_states)


def _random_states() -> tuple:
    import random

    import numpy as np
    import torch

    return torch.random.get_rng_state(), np.random.get_state(), random.getstate()


def _set_random_states(states: tuple) -> None:
    import random

    import numpy as np
    import torch

    torch.random.set_rng_state(states[0])
    np.random.set_state(states[1])
    random.setstate(states[2])
