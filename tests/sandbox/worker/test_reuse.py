"""The portable worker's test of whether its process can serve the next module as a fresh one would (``worker/reuse``).

Every change runs in one throwaway Python (they change the interpreter for good), each checked named, then undone."""

import json
import subprocess
import sys
import textwrap

from autograder.model import paths

WORKER = paths.PACKAGE_DIR / "sandbox" / "worker"

CASES = {  # what a module may do -> what the baseline must name (a substring); each case's second line undoes it
    "torch.matmul = lambda a, b: a\ntorch.matmul = MATMUL": "torch.matmul was replaced",
    "torch.Tensor.norm = lambda *a, **k: 0\ntorch.Tensor.norm = NORM": "torch.Tensor.norm was replaced",
    "torch.Tensor.__matmul__ = lambda a, b: a\ndel torch.Tensor.__matmul__": "torch.Tensor.__matmul__ was added",  # inherited before
    "builtins.sum = lambda *a: 0\nbuiltins.sum = SUM": "builtins.sum was replaced",
    "np.random.seed = print\nnp.random.seed = SEED": "numpy.random.seed was replaced",
    "math.tau_twice = 2 * math.tau\ndel math.tau_twice": "math.tau_twice was added",
    "torch.set_default_dtype(torch.float64)\ntorch.set_default_dtype(torch.float32)": "torch default dtype changed",
    "torch.set_grad_enabled(False)\ntorch.set_grad_enabled(True)": "torch grad mode changed",
    "torch.set_num_threads(THREADS + 1)\ntorch.set_num_threads(THREADS)": "torch threads changed",
    "MODE.__enter__()\nMODE.__exit__(None, None, None)": "torch function modes changed",
    "np.seterr(all='raise')\nnp.seterr(**ERR)": "numpy error handling changed",
    "threading.Thread(target=STOP.wait, daemon=True).start()\nSTOP.set(); time.sleep(0.2)": "threads changed",
    "signal.signal(signal.SIGINT, lambda *a: None)\nsignal.signal(signal.SIGINT, INT)": "signal handlers changed",
    "os.environ['OMP_NUM_THREADS'] = '7'\nos.environ.pop('OMP_NUM_THREADS', None)": "environment changed (OMP_NUM_THREADS)",
    "sys.setrecursionlimit(50000)\nsys.setrecursionlimit(LIMIT)": "interpreter hooks changed",
    # A kernel of its own for aten::cumsum changes what another module's torch.cumsum returns.
    "LIB = torch.library.Library('aten', 'IMPL'); LIB.impl('cumsum', lambda *a, **k: torch.zeros(1), 'CPU')\nLIB._destroy()":
        "torch dispatcher changed",
    "DEF = torch.library.Library('hx', 'DEF'); DEF.define('leak(Tensor x) -> Tensor')\nDEF._destroy()": "torch dispatcher changed",
    "GUARD = torch._C._IncludeDispatchKeyGuard(torch._C.DispatchKey.Python); GUARD.__enter__()\nGUARD.__exit__(None, None, None)":
        "torch dispatch keys changed",
    "torch._C._set_autograd_fallback_mode('nothing')\ntorch._C._set_autograd_fallback_mode(FALLBACK)": "torch autograd fallback changed",
}

SCRIPT = """
import builtins, json, math, os, signal, sys, threading, time, types
sys.path.insert(0, {worker!r})
import numpy as np
import torch
import reuse

MATMUL, NORM, SUM, INT, LIMIT = torch.matmul, torch.Tensor.norm, builtins.sum, signal.getsignal(signal.SIGINT), sys.getrecursionlimit()
SEED, ERR, STOP, THREADS = np.random.seed, np.geterr(), threading.Event(), torch.get_num_threads()
MODE, FALLBACK = torch.overrides.TorchFunctionMode(), torch._C._get_autograd_fallback_mode()
os.environ.pop('OMP_NUM_THREADS', None)
baseline = reuse.Baseline()
found = {{"clean": baseline.changes()}}
for case in {cases!r}:
    change, undo = case.split("\\n")
    exec(change)
    named = baseline.changes()
    exec(undo)
    found[case] = [named, baseline.changes()]
torch.lazy_part = types.ModuleType("lazy_part")  # a library's submodule imported later: no change
found["module added"] = baseline.changes()
del torch.lazy_part

folder = {folder!r}
sys.path.insert(0, folder)
import student
expected = torch.rand(3).tolist()
os.chdir(folder)
torch.manual_seed(5); np.random.seed(5); torch.rand(10)
baseline.restore(os.path.dirname(folder))
found["restored"] = ["student" in sys.modules, sys.path == baseline.path, os.getcwd() == baseline.cwd,
                     torch.rand(3).tolist() == expected, baseline.changes()]
print(json.dumps(found))
"""


def test_each_change_a_module_can_make_is_named_and_restoring_forgets_the_submission(tmp_path):
    folder = tmp_path / "submission-1"
    folder.mkdir()
    (folder / "student.py").write_text("VALUE = 1\n")
    script = SCRIPT.format(worker=str(WORKER), cases=list(CASES), folder=str(folder))
    proc = subprocess.run([sys.executable, "-I", "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["clean"] == [], found["clean"]
    for case, wanted in CASES.items():
        named, after_undo = found[case]
        assert any(wanted in line for line in named), (case, named)
        assert after_undo == [], (case, after_undo)
    assert found["module added"] == []
    assert found["restored"] == [False, True, True, True, []], found["restored"]
