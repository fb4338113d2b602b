"""Hostile and broken submissions: the grader holds, the score stays honest, and nothing is lost.

Every case is a real submission graded by ``python -m autograder grade SUB --out OUT`` in a
process of its own, from a private copy of the project (so the tree the grader runs from can
be checked for changes while other work goes on in the real one), in every sandbox mode this
machine can produce (``hostile/modes.py``: bubblewrap; root without namespaces, with and without
Landlock and seccomp; an unprivileged user with bubblewrap where user namespaces are allowed, and
without it, with and without Landlock and seccomp). Cases whose defence does not
depend on the mode (submission shapes, exits, garbage, comparisons) are graded in the strongest
mode only. An attack a mode cannot stop is an expected failure naming the reason, listed in
``CANNOT_STOP`` and in docs/threat_model.md under that mode. A case is either the
reference modules with ONE module replaced by a hostile one (``hostile/modules/<case>.py``
appended to the reference ``qkv_arithmetic.py``, so only what it redefines misbehaves), or a
submission *shape* built by ``hostile/submissions.py``. A session fixture grades the cases a
few at a time. To stay fast, most are graded with a manifest of the host and one witness (the
problem listed after it); the cases that could reach other problems (global tampering, killing
processes, the fork bomb, a zip full of extras) are graded with every problem of the manifest.
The module overrides of a mode are graded in batches, each one ``grade-all`` of a folder of them
(one worker, reset between submissions, as staff grade a class); the shapes, the cases graded
twice and those graded alone each get a ``grade`` of their own.
Expected scores come from the manifest at test time. The tests check four guarantees:

1. the grader finishes within the bound it can state, and exits normally;
2. results.json is written and valid, and its score is the honest one;
3. nothing outside the sandbox changes, and no process of the submission outlives grading;
4. the student reads in plain words what went wrong, in which problem and which call.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from autograder.gradescope import run_record
from autograder.grading import time_rules
from autograder.model import manifest
from autograder.sandbox import policy, runtime

REPO = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).resolve().parent
MODULES = HOSTILE / "modules"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"hostile_{name}", HOSTILE / f"{name}.py")
    module = sys.modules.setdefault(f"hostile_{name}", importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


submissions = _load("submissions")
modes = _load("modes")
HOST = "qkv_arithmetic"          # the smallest problem hosts the hostile code
CALL_SECONDS = 3                 # the host's per-call limit in the private copy (keeps timeouts cheap)
RESTART_SECONDS = 20             # what one worker (re)start may take on a loaded 2-core machine
POOL = 3                         # submissions graded at once (the machine has 2 cores; much of it is waiting)
SKIP_DIRS = {".venv", ".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".cache"}  # .cache: the grader's recorded expected values
MODES = modes.available()
STRONGEST = MODES[0]


@dataclass(frozen=True)
class Case:
    """One hostile submission and what an honest grader makes of it."""

    name: str
    honest: str                     # the host problem's honest score: "twin" (argmax_attention broken), "zero" or "full"
    says: tuple[str, ...] = ()      # patterns the student must read in the host problem's failed tests (or the notes)
    shape: bool = False             # built by hostile/submissions.py rather than a module override
    others: str = "full"            # what every other problem must keep
    sandbox: bool = True            # its defence depends on the sandbox mode: graded in every mode, not only the strongest
    exclusive: bool = False         # uses much of the machine (memory, or pipes for seconds): graded alone
    damages: bool = False           # where it succeeds it spoils the lab for later cases: its own lab in the weakest modes
    per_user: bool = False          # spends a per-user limit (processes): graded alone where the grader is not root
    slow: bool = False              # waits for time limits: start early
    full: bool = False              # graded against every problem of the manifest, not just the host and one witness
    exact: bool = True              # the host gets exactly its honest score (not only at most)
    peak_mb: int = 0                # if set: the grader process itself must stay below this resident size

    def __str__(self) -> str:
        return self.name


CALL = r"qkv_arithmetic\.argmax_attention\(Q=float64\["
CASES = [
    # Forgery: the grader alone writes results.json, and it never reads the student's words as results.
    Case("forge_files", "twin", (CALL, r"expected a tensor of shape \(3, 2\), got None")),
    Case("forge_detached", "twin", (CALL, r"got None")),
    Case("forge_stdout", "twin", (CALL, r"got None"), sandbox=False),
    Case("forge_reply_pipe", "twin", (CALL, r"sent back something unreadable|could not be read|raised OSError: \[Errno 9\] Bad file descriptor"), sandbox=False),
    # Comparison tampering: comparisons happen in the grader, on plain data.
    Case("tamper_patch_checks", "twin", (CALL, r"entries differ"), full=True, sandbox=False),
    Case("tamper_global_state", "twin", (CALL, r"got None"), full=True, sandbox=False),
    Case("tamper_tensor_subclass", "twin", (CALL, r"entries differ"), sandbox=False),
    Case("tamper_ndarray_subclass", "twin", (CALL, r"entries differ"), sandbox=False),
    # Stealing: the reference and the tests are not visible from the sandbox.
    Case("steal_search", "twin", (CALL, r"entries differ")),
    Case("steal_disk", "twin", (CALL, r"entries differ")),
    Case("symlink_dir", "zero", (r"qkv_arithmetic\.py could not be read: it is a link",), shape=True, sandbox=False),
    Case("symlink_folder", "zero", (r"qkv_arithmetic\.py was not found",), shape=True, others="zero", sandbox=False),
    Case("symlink_zip", "zero", (r"qkv_arithmetic\.py could not be read: it is a symbolic link",), shape=True, sandbox=False),
    # Attacking the grader.
    Case("attack_kill", "twin", (CALL, r"killed by signal SIG(TERM|KILL)"), slow=True, exact=False, full=True),
    Case("attack_write", "twin", (CALL, r"got None"), damages=True),
    Case("plant_pth", "twin", (CALL, r"got None"), damages=True),
    # Resource abuse.
    Case("res_busy_loop", "twin", (CALL, r"did not finish within the time limit of 3 s and was stopped"), slow=True, sandbox=False),
    Case("res_ignore_signals", "twin", (CALL, r"did not finish within the time limit of 3 s and was stopped"), slow=True),
    Case("res_sleep", "twin", (CALL, r"did not finish within the time limit of 3 s and was stopped"), slow=True, sandbox=False),
    Case("res_import_hang", "zero", (r"qkv_arithmetic\.py could not be imported: .*did not finish within 3 s",), slow=True, sandbox=False),
    Case("res_memory", "twin", (CALL, r"raised MemoryError", r"raised RuntimeError: .*alloc"), exclusive=True),
    Case("res_fork_bomb", "twin", (CALL, r"got None"), full=True, per_user=True),
    Case("res_setsid_children", "twin", (CALL, r"got None"), exclusive=True),
    Case("res_print_flood", "twin", (CALL, r"got None"), sandbox=False, exclusive=True),
    Case("res_fill_tmp", "twin", (CALL, r"got None|wrote more than \d+ MB of files")),
    Case("res_hoard_replies", "twin", (CALL, r"returned 160\.0 MB; with what this problem's earlier calls returned, that is more than "
                                             r"the 256 MB the grader keeps to judge them"), sandbox=False, peak_mb=700, exclusive=True),
    # Exits.
    Case("exit_import_sys", "zero", (r"qkv_arithmetic\.py could not be imported: SystemExit: All tests passed",), sandbox=False),
    Case("exit_import_os", "zero", (r"qkv_arithmetic\.py could not be imported: the process exited with status 3",), sandbox=False),
    Case("exit_import_keyboard", "zero", (r"qkv_arithmetic\.py could not be imported: KeyboardInterrupt",), sandbox=False),
    Case("exit_in_function", "twin", (CALL, r"raised SystemExit: 0", r"exited with status 0", r"raised KeyboardInterrupt"), sandbox=False),
    Case("exit_signal", "twin", (CALL, r"killed by signal SIGSEGV", r"killed by signal SIGABRT", r"killed by signal SIGKILL"), sandbox=False),
    # Garbage returns.
    Case("garbage_basic", "twin", (CALL, r"got None", r"got the string '\[\[23", r"got a generator object"), sandbox=False),
    Case("garbage_arrays", "twin", (CALL, r"non-finite value", r"expected shape \(2, 2\), got \(2, 2, 7\)", r"value could not be read|complex128"),
         sandbox=False),
    Case("garbage_objects", "twin", (CALL, r"Got: a tuple of 5 items", r"value could not be read: WireError: value nested too deeply",
                                     r"value could not be read: ValueError: it holds 335544320 bytes of arrays, more than the 268435456 allowed"), sandbox=False),
    Case("garbage_syntax", "zero", (r"qkv_arithmetic\.py could not be imported: SyntaxError",), sandbox=False),
    Case("garbage_encoding", "zero", (r"qkv_arithmetic\.py could not be imported: SyntaxError",), sandbox=False),
    # Submission shapes.
    Case("zip_top", "full", shape=True, sandbox=False),
    Case("zip_in_folder", "full", shape=True, sandbox=False),
    Case("dir_in_folder", "full", shape=True, sandbox=False),
    Case("missing_module", "zero", (r"qkv_arithmetic\.py was not found in the submission",), shape=True, sandbox=False),
    Case("empty_dir", "zero", (r"was not found in the submission",), shape=True, others="zero", sandbox=False),
    Case("empty_zip", "zero", (r"was not found in the submission",), shape=True, others="zero", sandbox=False),
    Case("not_a_zip", "zero", (r"submission\.zip is neither a folder nor a \.zip",), shape=True, others="zero", sandbox=False),
    Case("extras_dir", "full", (r"ignored \(never read or run\): .*conftest\.py",), shape=True, sandbox=False),
    Case("extras_zip", "full", (r"ignored \(never read or run\): .*\.OTTER_LOG",), shape=True, sandbox=False, full=True),
    Case("zip_slip", "full", (r"unsafe path, not extracted",), shape=True, sandbox=False),
    Case("fifo", "zero", (r"qkv_arithmetic\.py could not be read: it is a link or a special file",), shape=True, sandbox=False),
    Case("big_module", "zero", (r"qkv_arithmetic\.py could not be read: it is \d+ bytes, more than",), shape=True, sandbox=False),
    Case("many_entries", "full", shape=True, sandbox=False),
    Case("zip_bomb", "zero", (r"qkv_arithmetic\.py could not be read: it unpacks to \d+ bytes",), shape=True, sandbox=False, peak_mb=1200),
    Case("zip_bomb_lying_header", "zero", (r"qkv_arithmetic\.py could not be read",), shape=True, sandbox=False, peak_mb=1200),
]
TWICE = ("exit_in_function", "garbage_basic")   # graded a second time: the results must be identical apart from timings
GENERATED = {   # hostile overrides that cannot live in the repository as .py files (ruff and Python would choke on them)
    "garbage_syntax": b"\n\ndef argmax_attention(Q, K, V)\n    return None\n",
    "garbage_encoding": b"\n\nNAME = 'caf\xe9 \xff\xfe'\n\n\ndef argmax_attention(Q, K, V):\n    return None\n",
}
TWIN_OVERRIDE = b"\n\ndef argmax_attention(Q, K, V):\n    raise NotImplementedError\n"


@dataclass
class Lab:
    """A private project copy for one mode, the Python its grader runs, and the honest baselines."""

    root: Path
    project: Path
    mode: modes.Mode
    assignment: manifest.Assignment
    sources: dict[str, bytes]
    snapshot: dict
    uid: int | None = None          # the grader's uid in the "user" modes (the suite runs as root)
    python: str = sys.executable
    python_env: dict[str, str] = field(default_factory=dict)
    full: dict[str, float] = field(default_factory=dict)
    twin_score: float = -1.0
    reference_seconds: float = 0.0

    def bound(self) -> float:
        """Seconds a grading run may take: the honest run (with room for a loaded machine) plus the
        grader's stated worst case for the host problem (its time budget, one call over it, and a
        worker restart per stopped call)."""
        host_only = dataclasses.replace(self.assignment, problems=(self.assignment.problem(HOST),))
        return 3 * self.reference_seconds + 30 + time_rules.time_bound(host_only, RESTART_SECONDS)

    def folder(self, path: Path) -> Path:
        """Make ``path`` (a new folder, with any missing parents) and give them to the lab's grader user."""
        missing = [p for p in [path, *path.parents] if not p.exists()]
        path.mkdir(parents=True)
        for made in missing if self.uid is not None else []:
            os.chown(made, self.uid, self.uid)
        return path


@dataclass
class Run:
    """One grading run and what it left behind."""

    results: dict | None
    raw: bytes
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool
    peak_mb: float | None = None
    command: str = "grade"


# ``python -m autograder`` that also reports the grader process's own peak resident size.
MEASURED = ("import atexit, resource, runpy, sys\n"
            "atexit.register(lambda: print('peak-rss-kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr))\n"
            "sys.argv[0] = 'autograder'\n"
            "runpy.run_module('autograder', run_name='__main__', alter_sys=True)\n")


@dataclass
class Outcome:
    """A graded case, with the evidence the tests check."""

    case: Case
    lab: Lab
    marker: str
    run: Run
    out_before: dict
    out_after: dict
    scratch_before: dict
    scratch_after: dict
    grader_tmp_left: list[str]     # apart from torch's own cache folder of the grader process
    processes: list[str]
    host_tmp_hits: list[str]
    autograder_hits: list[str]       # files under /autograder that carry the case's marker
    python_before: dict
    python_after: dict
    again: Run | None = None


def snapshot(root: Path, skip: set[str] = SKIP_DIRS) -> dict[str, tuple]:
    """(kind, mtime, size) of every path under ``root`` (directories by presence only), skipping caches and the venv."""
    found: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            info = path.lstat()
            rel = str(path.relative_to(root))
            found[rel] = ("dir",) if path.is_dir() and not path.is_symlink() else ("file", info.st_mtime_ns, info.st_size)
    return found


def python_snapshot(lab: Lab) -> dict[str, tuple]:
    """The top folders of the lab's Python install, its venv and their site-packages (where planted code would go).

    Asked with ``-S`` so that code a submission planted there does not run (which also hides the venv from
    ``sys.prefix``: the venv is found from its pyvenv.cfg).
    """
    code = "import json, site, sys; print(json.dumps(sorted({sys.prefix, sys.base_prefix, *site.getsitepackages()})))"
    proc = subprocess.run([lab.python, "-I", "-S", "-c", code], env=dict(lab.python_env, PATH="/usr/bin:/bin"), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"{lab.python} could not list its own folders (exit {proc.returncode}): {proc.stderr[-2000:]}"
    folders = [Path(f) for f in json.loads(proc.stdout)]
    venv = Path(lab.python).parent.parent
    if (venv / "pyvenv.cfg").is_file():
        folders += [venv, *venv.glob("lib/python3*/site-packages")]
    found = {}
    for folder in folders:
        for sub in (folder, folder / "bin", folder / "lib"):
            if sub.is_dir():
                found.update({f"{sub}/{e.name}": (e.stat(follow_symlinks=False).st_mtime_ns,) for e in os.scandir(sub)})
    return found


def marked_processes(marker: str) -> list[str]:
    """Processes whose command line, environment or name carries ``marker``."""
    token = marker.encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        for what in ("cmdline", "environ", "comm"):
            try:
                data = Path(f"/proc/{pid}/{what}").read_bytes()
            except OSError:
                continue
            if token in data:
                found.append(f"pid {pid}: {data[:200]!r}")
                break
    return found


def autograder_hits(marker: str) -> list[str]:
    """Files under /autograder (Gradescope's layout, which a forger would aim at) named after or holding ``marker``."""
    hits = []
    for dirpath, _dirnames, filenames in os.walk("/autograder"):
        for name in filenames:
            path = os.path.join(dirpath, name)
            try:
                if marker in name or (os.path.getsize(path) < 1 << 20 and marker in Path(path).read_text(errors="replace")):
                    hits.append(path)
            except OSError:
                continue
    return hits


def host_tmp_hits(marker: str) -> list[str]:
    hits = [str(p) for folder in ("/tmp", "/var/tmp", "/dev/shm") for p in Path(folder).iterdir() if marker in p.name]
    for name in ("/tmp/results.json", "/autograder/results/results.json"):
        try:
            if marker in Path(name).read_text(errors="replace"):
                hits.append(name)
        except OSError:
            pass
    return hits


def _grader_process(lab: Lab, args: list[str], tmpdir: Path, bound: float, measure: bool = False) -> tuple:
    """``python -m autograder ARGS`` in a process of its own, from the project copy, in the lab's mode:
    (returncode, stdout, stderr, seconds, timed_out, peak MB of the grader process if ``measure``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "PYTEST_"))}
    env.update({**lab.python_env, **lab.mode.env}, TMPDIR=str(tmpdir), PYTHONDONTWRITEBYTECODE="1")
    if lab.uid is not None:
        env.update(HOME=str(lab.root), USER="grader", LOGNAME="grader")
    cmd = [lab.python, *(["-c", MEASURED] if measure else ["-m", "autograder"]), *args]
    user = {} if lab.uid is None else {"user": lab.uid, "group": lab.uid, "extra_groups": []}
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=lab.project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, **user)
    try:
        stdout, stderr = proc.communicate(timeout=bound)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        stdout, stderr = proc.communicate()
        timed_out = True
    peak = re.search(rb"peak-rss-kb (\d+)", stderr)
    return (proc.returncode, stdout.decode(errors="replace")[-5000:], stderr.decode(errors="replace")[-5000:], time.monotonic() - start,
            timed_out, int(peak.group(1)) / 1024 if peak else None)


def _read_results(path: Path) -> tuple[dict | None, bytes]:
    """results.json at ``path``, with what the staff's record beside it keeps of everything each module printed (under
    ``STAFF_PRINTED``: results.json shows students only what public tests printed)."""
    raw = path.read_bytes() if path.is_file() else b""
    try:
        results = json.loads(raw)
    except ValueError:
        return None, raw
    if isinstance(results, dict):
        results[STAFF_PRINTED] = _staff_printed(path)
    return results, raw


STAFF_PRINTED = "staff printed"


def _staff_printed(results_path: Path) -> dict[str, str]:
    """Everything each module printed, from the staff's record of the run that wrote ``results_path``: ``grade``'s run
    record beside it, or ``grade-all``'s score record (``records/<name>.json`` beside ``results/<name>.json``)."""
    record = results_path.parent.parent / "records" / results_path.name
    if results_path.parent.name == "results" and record.is_file():
        problems = json.loads(record.read_bytes()).get("problems", [])
        return {p["module"]: p.get("staff_output", "") for p in problems}
    printed: dict[str, str] = {}
    record_file = results_path.parent / run_record.RUN_RECORD
    for line in record_file.read_text(encoding="utf-8").splitlines() if record_file.is_file() else []:
        printed.update(json.loads(line).get("printed", {}))
    return printed


def grade(lab: Lab, submission: Path, out: Path, tmpdir: Path, measure: bool = False, command: str = "grade") -> Run:
    """``python -m autograder grade`` (or ``grade-all`` of the folder holding ``submission``) in the lab's mode."""
    graded = submission if command == "grade" else submission.parent  # grade-all takes the folder that holds it
    args = [command, str(graded), "--out", str(out)] + (["-q"] if command == "grade" else ["--jobs", "1"])
    returncode, stdout, stderr, seconds, timed_out, peak = _grader_process(lab, args, tmpdir, lab.bound(), measure)
    results, raw = _read_results(out if command == "grade" else out.parent / "results" / f"{submission.name}.json")
    return Run(results, raw, returncode, stdout, stderr, seconds, timed_out, peak, command)


def module_source(lab: Lab, case: Case, marker: str, scratch: Path, out: Path) -> bytes:
    """The reference host module followed by the case's hostile override, placeholders filled in."""
    if case.name in GENERATED:
        return lab.sources[HOST] + GENERATED[case.name]
    text = (MODULES / f"{case.name}.py").read_text(encoding="utf-8")
    for key, value in {"__MARKER__": marker, "__PROJECT__": str(lab.project), "__REAL_PROJECT__": str(REPO),
                       "__OUT__": str(out), "__SCRATCH__": str(scratch)}.items():
        text = text.replace(key, value)
    return lab.sources[HOST] + b"\n\n# ---- hostile part ----\n" + text.encode()


def build(lab: Lab, case: Case, marker: str, folder: Path, scratch: Path, out: Path, name: str = "submission") -> Path:
    """Write the case's submission into ``folder`` (as ``folder/name`` for a module override); return its path."""
    if not folder.exists():
        lab.folder(folder)
    if case.shape:
        ctx = submissions.Context(marker=marker, scratch=scratch, project=lab.project)
        built = submissions.BUILDERS[case.name](folder, dict(lab.sources), ctx)
    else:
        built = folder / name
        built.mkdir()
        for module, source in lab.sources.items():
            (built / f"{module}.py").write_bytes(source)
        (built / f"{HOST}.py").write_bytes(module_source(lab, case, marker, scratch, out))
    if lab.uid is not None:
        modes.chown_tree(folder, lab.uid)
    return built


def batchable(mode: modes.Mode, case: Case) -> bool:
    """Cases graded together in one ``grade-all`` of their lab (one worker for all of them, as a batch of submissions is
    graded): module overrides only (a shape tests ``grade``'s reading of one submission), not the cases graded twice or by
    ``grade-all`` already, nor those graded alone."""
    return not (case.shape or case.name in TWICE or case.name == "plant_pth" or case.exclusive or _lacks(mode) == "same-user"
                or (case.per_user and not mode.protections.is_root))


def run_batch(lab: Lab, cases: list[Case], number: int) -> dict[str, Outcome]:
    """Build the cases as the submissions of one folder, grade it with ``grade-all --jobs 1`` (one worker, reset between
    submissions, as staff grade a class), and inspect each case as ``run_case`` does. What the batch shares (the --out
    folder, the grader's temporary folder, the Python install) is checked for every case; processes and files are found
    by each case's own marker once the batch is done."""
    root = lab.root / "batches" / f"batch-{number}"
    export, out_dir, tmpdir = lab.folder(root / "export"), lab.folder(root / "out"), lab.folder(root / "tmp")
    (out_dir / "previous.txt").write_text("something the grader must leave alone\n")
    markers, scratches = {}, {}
    for case in cases:
        markers[case.name] = f"hx{secrets.token_hex(6)}"
        scratches[case.name] = lab.folder(lab.root / "cases" / case.name / "scratch")
        (scratches[case.name] / "keep.txt").write_text("scratch\n")
        build(lab, case, markers[case.name], export, scratches[case.name], out_dir / "results" / f"{case.name}.json", name=case.name)
    out_before, python_before = snapshot(out_dir), python_snapshot(lab)
    scratch_before = {name: snapshot(folder) for name, folder in scratches.items()}
    returncode, stdout, stderr, seconds, timed_out, _peak = _grader_process(
        lab, ["grade-all", str(export), "--out", str(out_dir / "grades.csv"), "--jobs", "1"], tmpdir, len(cases) * lab.bound())
    out_after, python_after = snapshot(out_dir), python_snapshot(lab)
    left = sorted(p for p in os.listdir(tmpdir) if not p.startswith("torchinductor_"))
    done = {}
    for case in cases:
        marker = markers[case.name]
        results, raw = _read_results(out_dir / "results" / f"{case.name}.json")
        run = Run(results, raw, returncode, stdout, stderr, seconds, timed_out, None, "grade-all")
        done[case.name] = Outcome(case, lab, marker, run, out_before, out_after, scratch_before[case.name], snapshot(scratches[case.name]),
                                  left, marked_processes(marker), host_tmp_hits(marker), autograder_hits(marker), python_before, python_after)
    return done


def batches_of(pairs: list[tuple[modes.Mode, Case]], lab_for, size: int = 8) -> list[tuple[Lab, list[Case]]]:
    """The batchable pairs, grouped by lab into batches of at most ``size``, the slow cases spread over them."""
    by_lab: dict[int, tuple[Lab, list[Case]]] = {}
    for mode, case in pairs:
        lab = lab_for(mode, case)
        by_lab.setdefault(id(lab), (lab, []))[1].append(case)
    found = []
    for lab, cases in by_lab.values():
        count = -(-len(cases) // size)
        ordered = sorted(cases, key=lambda c: not c.slow)
        found += [(lab, ordered[i::count]) for i in range(count)]
    return found


def run_case(lab: Lab, case: Case) -> Outcome:
    """Build, grade and inspect one case."""
    root = lab.root / "cases" / case.name
    marker = f"hx{secrets.token_hex(6)}"
    scratch, out_dir, tmpdir = lab.folder(root / "scratch"), lab.folder(root / "out"), lab.folder(root / "tmp")
    (scratch / "keep.txt").write_text("scratch\n")
    (out_dir / "previous.txt").write_text("something the grader must leave alone\n")
    out = out_dir / ("results.json" if case.name != "plant_pth" else "grades.csv")
    submission = build(lab, case, marker, root / "build", scratch, out)
    out_before, scratch_before, python_before = snapshot(out_dir), snapshot(scratch), python_snapshot(lab)
    command = "grade-all" if case.name == "plant_pth" else "grade"
    run = grade(lab, submission, out, tmpdir, measure=bool(case.peak_mb), command=command)
    outcome = Outcome(
        case, lab, marker, run, out_before, snapshot(out_dir), scratch_before, snapshot(scratch),
        sorted(p for p in os.listdir(tmpdir) if not p.startswith("torchinductor_")), marked_processes(marker), host_tmp_hits(marker),
        autograder_hits(marker), python_before, python_snapshot(lab),
    )
    if case.name in TWICE:
        outcome.again = grade(lab, submission, out_dir / "again.json", tmpdir)
    if case.name == "plant_pth":  # the next grader process, on an honest submission that loses points
        outcome.again = grade(lab, lab.root / "baseline" / "twin", out_dir / "next.json", tmpdir)
    return outcome


def _make_lab(root: Path, lean: bool, mode: modes.Mode, uid: int | None = None, keep: list[str] | None = None) -> Lab:
    """Copy the project; lower the host's call limit; a lean lab lists only the host and the next problem (or ``keep``)."""
    if uid is not None:
        os.chown(root, uid, uid)
    project = root / "project"
    ignore = shutil.ignore_patterns(".pytest_cache")  # bytecode kept (valid: copies keep mtimes), else every grade compiles the harness
    for name in ("autograder", "assignments", "reference"):
        shutil.copytree(REPO / name, project / name, ignore=ignore, symlinks=True)
    yaml_path = project / "assignments" / HOST / "problem.yaml"
    host = yaml.safe_load(yaml_path.read_text(encoding="utf-8"))
    host["limits"] = dict(host.get("limits") or {}, call_seconds=CALL_SECONDS)
    yaml_path.write_text(yaml.safe_dump(host, sort_keys=False), encoding="utf-8")
    manifest_path = project / "assignments" / "assignment.yaml"
    listed = manifest.load(manifest_path)
    assert HOST in listed.modules, f"{HOST} must be listed in the manifest to host the hostile cases"
    if lean:
        # The host and one witness (the problem listed after it) stand for "every other problem".
        i = listed.modules.index(HOST)
        keep = keep or ([HOST] + listed.modules[i + 1 : i + 2] if i + 1 < len(listed.modules) else [HOST] + listed.modules[:i][:1])
        data = yaml.safe_load(manifest_path.read_text(encoding="utf-8"))
        data["problems"] = keep
        manifest_path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assignment = manifest.load(manifest_path)
    sources = {m: (project / "reference" / f"{m}.py").read_bytes() for m in assignment.modules}
    lab = Lab(root, project, mode, assignment, sources, {}, uid)
    if uid is not None:
        lab.python, lab.python_env = modes.user_python(root, uid)
        _share_expected_values(lab, uid)
        modes.chown_tree(project, uid)
    lab.snapshot = snapshot(project)
    lab.full = {p.module: p.points for p in assignment.problems}
    return lab


def _share_expected_values(lab: Lab, uid: int) -> None:
    """Give the lab's grader user (whose cache is under the lab, its home) the expected values this suite's own cache
    holds for the same sources: recorded once per suite, not once per user lab (each recording imports torch)."""
    from autograder.expected import records

    cache = lab.root / ".cache" / "autograder" / "expected"
    for module, fingerprint in records.refresh_cache(lab.assignment.modules).items():
        source = records.cached_folder(module, fingerprint)
        shutil.copytree(source, cache / source.name)
    modes.chown_tree(lab.root / ".cache", uid)
    cache.chmod(0o700)


def _baseline(lab: Lab, twin: bool, grade_them: bool = True) -> None:
    """Write the reference and the twin (the reference with argmax_attention broken honestly); grade the reference
    (full marks, timing) and, with ``twin``, the twin."""
    for name, override in (("reference", b""), ("twin", TWIN_OVERRIDE)):
        sub = lab.folder(lab.root / "baseline" / name)
        for module, source in lab.sources.items():
            (sub / f"{module}.py").write_bytes(source + (override if module == HOST else b""))
        if lab.uid is not None:
            modes.chown_tree(sub, lab.uid)
        if not grade_them or (name == "twin" and not twin):
            continue
        tmpdir = lab.folder(lab.root / "baseline" / f"{name}-tmp")
        lab.reference_seconds = lab.reference_seconds or 120.0
        run = grade(lab, sub, lab.root / "baseline" / f"{name}.json", tmpdir)
        assert run.results is not None, f"grading the {name} in mode {lab.mode} failed:\n{run.stderr}"
        scores = problem_scores(run.results)
        if name == "reference":
            assert scores == lab.full, f"the reference must get full marks in mode {lab.mode}: {scores} vs {lab.full}\n{run.stderr}"
            lab.reference_seconds = run.seconds
        else:
            lab.twin_score = scores[HOST]
            assert 0 < lab.twin_score < lab.full[HOST], "breaking argmax_attention must cost some points, not all"


def problem_scores(results: dict) -> dict[str, float]:
    """Points per problem, from the test entries (names are 'module: test')."""
    scores: dict[str, float] = {}
    for test in results.get("tests", []):
        module = test["name"].split(":")[0]
        if test.get("max_score", 0) > 0 or not test["name"].endswith("output printed by your code"):
            scores[module] = scores.get(module, 0.0) + float(test["score"])
    return scores


# A "-bare" mode is its twin without Landlock and seccomp: only the cases those layers defend differ there.
FILES_AND_SIGNALS = ("forge_files", "forge_detached", "steal_search", "steal_disk", "attack_write", "plant_pth", "res_fill_tmp", "attack_kill")
# Where nothing separates student code from the grader's own user, these show what that costs (each spoils the lab).
SAME_USER_SHOWCASE = ("steal_disk", "attack_kill", "attack_write", "plant_pth", "forge_detached")


def graded_in(mode: modes.Mode) -> list[Case]:
    """All cases in the strongest mode; elsewhere those whose defence depends on the mode (time limits are the same everywhere)."""
    if mode is STRONGEST:
        return list(CASES)
    cases = [c for c in CASES if c.sandbox and (not c.slow or c.name in ("res_ignore_signals", "attack_kill"))]
    if mode.name.endswith("-bare"):
        cases = [c for c in cases if c.name in FILES_AND_SIGNALS]
    if _lacks(mode) == "same-user":
        cases = [c for c in cases if c.name in SAME_USER_SHOWCASE]
    return cases


# What each mode cannot stop: (layers the mode lacks, case) -> (the guarantees that fail, why). A mode lacks a layer when
# its protections say so; docs/threat_model.md lists the same rows under "Modes and what they cannot stop".
GUARANTEES = ("finishes", "honest", "contained", "explained")
_STRAY = ("without Landlock or bubblewrap, a root grader hides only its own folders: a copy of the reference that any user "
          "can read elsewhere on the machine (a second checkout, say) is readable by the sandbox uid too")
_SHARED_TMP = ("without Landlock or bubblewrap, the sandbox uid can write the folders every user may write (/tmp, /var/tmp, "
               "/dev/shm) while it runs; the grader deletes what it left there when the worker ends")
_SAME = ("without Landlock or bubblewrap, student code runs as the grader's own user: it can read, write and signal "
         "whatever the grader can")
CANNOT_STOP: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("permissions", "steal_disk"): (("honest", "explained"), _STRAY),
    ("permissions", "steal_search"): (("honest", "explained"), _STRAY),
    ("permissions", "attack_write"): (("contained",), _SHARED_TMP),
    ("same-user", "steal_disk"): (("honest", "explained"), _SAME),
    ("same-user", "attack_kill"): (GUARANTEES, _SAME),
    ("same-user", "attack_write"): (("honest", "contained", "explained"), _SAME),
    ("same-user", "plant_pth"): (("honest", "contained"), _SAME),
    ("same-user", "forge_detached"): (("contained",), _SAME),
    ("same-user", "project"): (("contained",), _SAME),
}


def _lacks(mode: modes.Mode) -> str:
    """'same-user' when nothing keeps student code from the grader's user, 'permissions' when only a uid of its own does."""
    p = mode.protections
    if p.bwrap or (p.landlock and (p.is_root or p.landlock >= 6)):
        return ""
    return "permissions" if p.is_root else "same-user"


PAIRS = [(m, c) for m in MODES for c in graded_in(m)]


# Where the suite runs as a normal user, a same-user mode grades as the suite's own user: these would kill the suite or
# plant code in its own venv. They are reported as expected failures without running (as root they run, as another uid).
REACHES_THE_SUITE = ("attack_kill", "attack_write", "plant_pth", "forge_detached")


def _not_run_here(mode: modes.Mode, what: str) -> bool:
    return what in REACHES_THE_SUITE and _lacks(mode) == "same-user" and not (mode.as_user and os.geteuid() == 0)


def _expected_failure(mode: modes.Mode, what: str, guarantee: str) -> list:
    """An xfail mark when ``mode`` cannot keep ``guarantee`` for ``what`` (a case's name, or 'project'), else none."""
    found = CANNOT_STOP.get((_lacks(mode), what))
    if what == "project" and _not_run_here(mode, "attack_write"):
        return []  # nothing that writes into the project was run
    if _not_run_here(mode, what):
        return [pytest.mark.xfail(reason=f"mode {mode} cannot stop it: {found[1] if found else _SAME}; not run here, where "
                                         "the grader would be the test suite's own user (run the suite as root to see it)", run=False)]
    if not found or guarantee not in found[0]:
        return []
    return [pytest.mark.xfail(reason=f"mode {mode} cannot stop it: {found[1]}", strict=True)]


def _params(guarantee: str, cases=None) -> list:
    return [pytest.param(mode, case, id=f"{mode}-{case}", marks=_expected_failure(mode, case.name, guarantee))
            for mode, case in PAIRS if cases is None or case in cases]


def _selected(session: pytest.Session) -> list[tuple[modes.Mode, Case]]:
    chosen = set()
    for item in session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if isinstance(params.get("case"), Case) and isinstance(params.get("mode"), modes.Mode):
            chosen.add((params["mode"].name, params["case"].name))
        elif "outcomes" in getattr(item, "fixturenames", ()):
            chosen.update((m.name, c.name) for m, c in PAIRS)
    return [(m, c) for m, c in PAIRS if (m.name, c.name) in chosen and not _not_run_here(m, c.name)]


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory, request) -> dict[tuple[str, str], Outcome]:
    """Grade every selected (mode, case): most against a lean lab of their mode, a few against the full manifest."""
    pairs = _selected(request.session)
    if os.geteuid() == 0:
        runtime.make_private([REPO])  # as the grader does for its own project when it runs from it
    labs: dict[tuple[str, bool], Lab] = {}
    users = iter(range(modes.user_uid_base(), modes.user_uid_base() + 500))
    made_roots, planned = [], []
    for mode in [m for m in MODES if any(pm is m for pm, _ in pairs)]:
        for full in sorted({c.full and mode is STRONGEST for pm, c in pairs if pm is mode}):
            uid = next(users) if mode.as_user else None
            root = Path(tempfile.mkdtemp(prefix=f"hostile-{mode}-", dir="/tmp")) if uid is not None else tmp_path_factory.mktemp(f"hostile-{mode}")
            made_roots.append(root)
            planned.append((mode, full, uid, root))

    def set_up(plan: tuple) -> Lab:
        mode, full, uid, root = plan
        lab = _make_lab(root, lean=not full, mode=mode, uid=uid)
        _baseline(lab, twin=not full and mode is STRONGEST)
        return lab

    with ThreadPoolExecutor(POOL) as pool:  # each lab's copies and honest runs are its own: they need not wait for the others
        for (mode, full, _uid, _root), lab in zip(planned, pool.map(set_up, planned)):
            labs[(mode.name, full)] = lab
    twin = labs[(STRONGEST.name, False)].twin_score if (STRONGEST.name, False) in labs else -1.0
    for lab in labs.values():
        lab.twin_score = twin

    def lab_for(mode: modes.Mode, case: Case) -> Lab:
        lab = labs[(mode.name, case.full and mode is STRONGEST)]
        if not (case.damages and _lacks(mode) == "same-user"):
            return lab
        uid = next(users) if mode.as_user else None
        root = Path(tempfile.mkdtemp(prefix=f"hostile-{mode}-{case}-", dir="/tmp")) if uid is not None else tmp_path_factory.mktemp(f"hostile-{mode}-{case}")
        made_roots.append(root)
        own = _make_lab(root, lean=True, mode=mode, uid=uid)
        own.twin_score, own.reference_seconds = lab.twin_score, lab.reference_seconds
        _baseline(own, twin=False, grade_them=False)
        return own

    # Graded one at a time: the memory hogs, what spends a per-user limit where the grader is a user, and everything of a
    # mode where one case can reach the others (same user, nothing between them).
    alone = [p for p in pairs if p[1].exclusive or (p[1].per_user and not p[0].protections.is_root) or _lacks(p[0]) == "same-user"]
    together = [p for p in pairs if p not in alone and batchable(*p)]
    shared = [p for p in pairs if p not in alone and p not in together]
    # Units of work for the pool: a batch (one grade-all, slow if any of its cases is) or one case; the slow ones first.
    units = [("batch", lab, cases, i) for i, (lab, cases) in enumerate(batches_of(together, lab_for))]
    units += [("case", lab_for(m, c), [c], m) for m, c in shared]
    units.sort(key=lambda u: not any(c.slow for c in u[2]))

    def work(unit) -> dict[tuple[str, str], Outcome]:
        kind, lab, cases, extra = unit
        if kind == "batch":
            return {(lab.mode.name, name): o for name, o in run_batch(lab, cases, extra).items()}
        return {(extra.name, cases[0].name): run_case(lab, cases[0])}

    stray = _stray_reference()
    try:
        done: dict[tuple[str, str], Outcome] = {}
        with ThreadPoolExecutor(POOL) as pool:
            for found in pool.map(work, units):
                done.update(found)
        for mode, case in alone:
            done[(mode.name, case.name)] = run_case(lab_for(mode, case), case)
        yield done
    finally:
        runtime.remove_tree(str(stray))
        for root in made_roots:
            if str(root).startswith("/tmp/hostile-"):
                runtime.remove_tree(str(root))


def _stray_reference() -> Path:
    """A copy of the reference that any user can read, as a staff member's second checkout would be: only Landlock or
    bubblewrap keep student code from it (the grader cannot know of it, so it cannot make it private)."""
    stray = Path(tempfile.mkdtemp(prefix="hostile-stray-", dir="/tmp"))
    shutil.copytree(REPO / "reference", stray / "reference")
    for path in [stray, *stray.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    return stray


def _outcome(outcomes: dict, mode: modes.Mode, case: Case) -> Outcome:
    return outcomes[(mode.name, case.name)]


def _host_failures(results: dict) -> list[str]:
    return [t["output"] for t in results["tests"] if t["name"].startswith(f"{HOST}: ") and t["status"] == "failed"]


def _printed(results: dict, module: str = HOST) -> str:
    """Everything ``module``'s code printed (the staff's record: hidden tests' output too)."""
    return results.get(STAFF_PRINTED, {}).get(module, "")


def _strongest(name: str) -> tuple[modes.Mode, Case]:
    return STRONGEST, next(c for c in CASES if c.name == name)


@pytest.mark.parametrize(("mode", "case"), _params("finishes"))
def test_grader_finishes_and_writes_valid_results(mode, case: Case, outcomes) -> None:
    o = _outcome(outcomes, mode, case)
    run = o.run
    assert not run.timed_out, f"grading took longer than its bound of {o.lab.bound():.0f} s"
    assert run.returncode == 0, f"the grader exited with {run.returncode}:\n{run.stderr}"
    assert isinstance(run.results, dict), f"results.json missing or not JSON:\n{run.raw[:500]!r}\n{run.stderr}"
    assert set(run.results) >= {"score", "tests", "output"}
    for test in run.results["tests"]:
        assert set(test) >= {"name", "score", "max_score", "status", "output", "visibility"}, test
        assert test["status"] in ("passed", "failed") and 0 <= test["score"] <= test["max_score"]
        assert len(test["output"]) <= 8200, f"{test['name']}: output of {len(test['output'])} characters"
    assert run.results["score"] == pytest.approx(sum(t["score"] for t in run.results["tests"]))
    assert len(run.raw) < 200_000, f"results.json is {len(run.raw)} bytes"
    if run.command == "grade":  # grade-all prints a summary of the whole folder instead
        assert f"score {run.results['score']:g}/" in run.stdout, "the grader's own summary line must match results.json"


@pytest.mark.parametrize(("mode", "case"), _params("honest"))
def test_score_is_the_honest_one(mode, case: Case, outcomes) -> None:
    o = _outcome(outcomes, mode, case)
    lab, results = o.lab, o.run.results
    assert results is not None, o.run.stderr
    scores = problem_scores(results)
    honest = {"full": lab.full[HOST], "zero": 0.0, "twin": lab.twin_score}[case.honest]
    expected = {m: (honest if m == HOST else (0.0 if case.others == "zero" else full)) for m, full in lab.full.items()}
    assert scores.get(HOST, 0.0) <= honest, f"the trick raised the score of {HOST}: {scores.get(HOST)} > {honest}"
    if not case.exact:  # killing the worker's first process lands a moment later, maybe in another call of the host
        expected[HOST] = scores.get(HOST, 0.0)
    assert scores == expected, "problems the trick did not touch keep their points; the host gets exactly its honest score"
    assert results["score"] == pytest.approx(sum(expected.values()))
    if o.again is not None and case.name == "plant_pth":
        assert o.again.results is not None, o.again.stderr
        assert problem_scores(o.again.results)[HOST] == lab.twin_score, "code planted by one submission changed the next one's score"


@pytest.mark.parametrize(("mode", "case"), _params("contained"))
def test_nothing_outside_the_sandbox_changes(mode, case: Case, outcomes) -> None:
    o = _outcome(outcomes, mode, case)
    new_in_out = set(o.out_after) - set(o.out_before)
    graded_all = o.run.command == "grade-all"  # it writes its CSVs, summaries and per-submission files there
    allowed = {"results.json", "again.json", "next.json", run_record.RUN_RECORD} | ({f for f in new_in_out if o.marker not in f} if graded_all else set())
    assert new_in_out <= allowed, f"unexpected files next to results.json: {new_in_out - allowed}"
    assert {k: v for k, v in o.out_after.items() if k in o.out_before} == o.out_before, "files in the --out folder changed"
    assert o.scratch_after == o.scratch_before, "the scratch folder changed"
    assert o.grader_tmp_left == [], f"the grader left temporary files behind: {o.grader_tmp_left}"
    assert o.processes == [], f"processes of the submission outlived grading: {o.processes}"
    assert o.host_tmp_hits == [], f"files of the submission appeared outside the sandbox: {o.host_tmp_hits}"
    assert o.autograder_hits == [], f"the submission reached /autograder: {o.autograder_hits}"
    assert o.python_after == o.python_before, f"the Python install changed: {set(o.python_after) ^ set(o.python_before)}"
    if case.name in ("attack_write", "forge_files"):
        printed = _printed(o.run.results)
        scratch = re.search(r"scratch: (\S+)", printed)
        lists = re.findall(r"(?:wrote|forged): \[(.*?)\]", printed)
        assert lists, printed[:2000]
        reached = {p.strip(" '\"") for line in lists for p in line.split(",") if p.strip()}
        inside = scratch.group(1) if scratch else "/tmp"
        box = os.path.dirname(inside.rstrip("/")) + "/"
        # Where the grader runs as the worker's own user, the worker owns its box: it can change the mode bits of its
        # copy of the worker code and of its staged module (Landlock governs contents, not modes), never their contents.
        same_user = not mode.protections.is_root and not mode.protections.bwrap
        outside = {p for p in reached if not p.startswith(inside.rstrip("/") + "/")
                   and not (same_user and p.startswith("chmod " + box))}
        assert not outside, f"{case.name} wrote outside the sandbox's scratch folder {inside}: {outside}"


@pytest.mark.parametrize(("mode", "case"), _params("explained", [c for c in CASES if c.says]))
def test_student_reads_what_went_wrong(mode, case: Case, outcomes) -> None:
    results = _outcome(outcomes, mode, case).run.results
    assert results is not None
    failures = _host_failures(results)
    text = "\n".join(failures) + "\n" + results["output"]
    for pattern in case.says:
        assert re.search(pattern, text), f"no message says {pattern!r}; the student reads:\n{text[:3000]}"
    for output in failures if case.others != "zero" else []:  # a submission-wide failure is named once, in the notes
        assert HOST in output, f"a failed test does not name the problem:\n{output}"


@pytest.mark.parametrize("name", TWICE)
def test_grading_twice_gives_the_same_results(name: str, outcomes) -> None:
    o = _outcome(outcomes, *_strongest(name))
    assert o.again is not None and o.again.results is not None

    def strip(results: dict) -> dict:
        return {k: v for k, v in results.items() if k not in ("execution_time", STAFF_PRINTED)}  # results.json's own

    assert strip(o.run.results) == strip(o.again.results)


@pytest.mark.parametrize(("mode", "case"), _params("honest", [c for c in CASES if c.name == "steal_search"]))
def test_sandbox_hides_the_project_and_the_tests(mode, case: Case, outcomes) -> None:
    printed = _printed(_outcome(outcomes, mode, case).run.results)
    assert "usable files found: []" in printed, printed[:2000]


@pytest.mark.parametrize("mode", [pytest.param(m, id=str(m), marks=_expected_failure(m, "project", "contained")) for m in MODES])
def test_project_copies_are_unchanged(mode, outcomes) -> None:
    labs = {id(o.lab): o.lab for o in outcomes.values() if o.lab.mode is mode}
    assert labs, f"no case was graded in mode {mode}"
    for lab in labs.values():
        assert snapshot(lab.project) == lab.snapshot, f"{lab.project} changed"


def test_fork_bomb_is_capped(outcomes) -> None:
    bomb = next(c for c in CASES if c.name == "res_fork_bomb")
    for mode in (m for m in MODES if bomb in graded_in(m)):
        o = _outcome(outcomes, mode, bomb)
        counts = [int(n) for n in re.findall(r"spawned (\d+) processes", _printed(o.run.results))]
        assert counts and max(counts) < 600, f"mode {mode}: the process limit did not stop the fork bomb: {counts}"


def test_replies_kept_for_judging_are_bounded(outcomes) -> None:
    """A module whose calls return 160 MB each cannot make the grader keep them all until
    judging (``settings.TAPE_MB`` per problem); the grader's peak stays within its stated budget."""
    case = next(c for c in CASES if c.name == "res_hoard_replies")
    run = _outcome(outcomes, STRONGEST, case).run
    assert run.peak_mb is not None, run.stderr
    assert run.peak_mb < case.peak_mb, f"the grader's resident size reached {run.peak_mb:.0f} MB"


def test_zip_bombs_are_refused_quickly_and_cheaply(outcomes) -> None:
    for case in (c for c in CASES if c.peak_mb and c.shape):
        run = _outcome(outcomes, STRONGEST, case).run
        assert run.peak_mb is not None, run.stderr
        assert run.peak_mb < case.peak_mb, f"{case.name}: the grader's resident size reached {run.peak_mb:.0f} MB"
        assert run.results["execution_time"] < 60


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_the_scratch_folder_is_capped(mode, outcomes) -> None:
    case = next(c for c in CASES if c.name == "res_fill_tmp")
    if case not in graded_in(mode):
        pytest.skip(f"res_fill_tmp is not graded in mode {mode}")
    o = _outcome(outcomes, mode, case)
    if mode.protections.bwrap and not policy.bwrap_sizes_tmpfs(mode.protections.bwrap):
        pytest.skip("this bubblewrap cannot cap the size of its in-memory /tmp (it needs 0.7 or later, not setuid)")
    if mode.protections.bwrap:  # bubblewrap's /tmp is a tmpfs of TMP_MB: writes fail there
        printed = _printed(o.run.results)
        filled = [int(n) for n in re.findall(r"filled \S+ with (\d+) MB", printed)]
        huge = [int(n) for n in re.findall(r"huge file stopped at (\d+) MB", printed)]
        assert filled and huge, printed[:2000]
        assert max(filled + huge) <= policy.TMP_MB, f"the sandbox's /tmp took {max(filled + huge)} MB"
    else:  # elsewhere the grader watches what the call wrote and stops it
        text = "\n".join(_host_failures(o.run.results))
        assert re.search(r"wrote more than \d+ MB of files", text), text[:2000]


def test_printing_floods_are_cut(outcomes) -> None:
    o = _outcome(outcomes, *_strongest("res_print_flood"))
    assert "more bytes of output dropped" in _printed(o.run.results)


def test_real_project_has_no_trace(outcomes) -> None:
    markers = [o.marker for o in outcomes.values()]
    names = [str(p) for top in (REPO, REPO / ".venv") for p in top.iterdir() if any(m in p.name for m in markers)]
    for dirpath, dirnames, filenames in os.walk(REPO):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        names += [os.path.join(dirpath, f) for f in dirnames + filenames if any(m in f for m in markers)]
    assert names == []


def test_every_mode_is_named_in_the_threat_model() -> None:
    text = (REPO / "docs" / "threat_model.md").read_text(encoding="utf-8")
    for (lacks, case), (_guarantees, why) in CANNOT_STOP.items():
        assert f"`{case}`" in text and why in text, f"docs/threat_model.md must list {case} ({lacks}): {why}"


# ---- The guards behind the guarantees, tested directly on one worker session ----

GUARD_MODULES = {
    "slowpoke": "import time\n\n\ndef nap(seconds):\n    time.sleep(seconds)\n    return seconds\n",
    "stopper": ("import os\nimport signal\nimport threading\n\n\ndef stop_soon():\n"
                "    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGSTOP)).start()\n    return 1\n\n\n"
                "def echo(x):\n    return x\n"),
    "polluter": "import builtins\n\nimport torch\n\ntorch.set_default_dtype(torch.float16)\nbuiltins.POLLUTED = True\n\n\ndef ping():\n    return 1\n",
    "observer": ("def look():\n    import builtins\n\n    import torch\n\n"
                 "    return [hasattr(builtins, 'POLLUTED'), str(torch.get_default_dtype())]\n"),
    "crasher": "import os\nimport time\n\ntime.sleep(2.0)\n\n\ndef crash():\n    os._exit(3)\n\n\ndef ok():\n    return 1\n",
    "spawner": ("import subprocess\n\n\ndef spawn(marker):\n"
                "    subprocess.Popen(['/bin/sh', '-c', 'sleep 1000', marker], start_new_session=True)\n    return 1\n"),
}


@pytest.fixture(scope="module")
def guard_session():
    from autograder.sandbox.session import WorkerSession

    session = WorkerSession(memory_mb=2048, start_now=True)
    session.switch(session.stage({k: v.encode() for k, v in GUARD_MODULES.items()}))
    yield session
    session.close()


def _call(session, module: str, func: str, *args, seconds: float = 5.0, guard=None):
    if guard is not None:  # under the time rules, as grading runs every call
        return guard.call(session, module, module, func, args, {}, seconds, f"{module}.{func}()")
    return session.call(module, func, args, {}, seconds, f"{module}.{func}()")


def test_time_budget_stops_a_module_that_keeps_running_long(guard_session) -> None:
    from autograder.sandbox.session import StudentCallError

    guard = time_rules.CallGuard()
    guard.set_budget("slowpoke", 1.0)
    done = 0
    with pytest.raises(StudentCallError, match=r"was not run: the calls into slowpoke\.py have used up their time budget of 1 s") as err:
        for _ in range(10):
            _call(guard_session, "slowpoke", "nap", 0.4, guard=guard)
            done += 1
    assert err.value.kind == "budget" and 2 <= done <= 3


def test_a_crashing_call_costs_its_time_and_the_reimport_it_causes(guard_session) -> None:
    """A call whose module process ends costs what it took, and the module's slow re-import (2 s) after it; the worker
    lives on, so two crashes spend far less than two full limits and the other calls still run."""
    from autograder.sandbox.session import StudentCallError

    guard = time_rules.CallGuard()
    guard.set_budget("crasher", 12.0)
    first = len(guard_session.exchanges)
    for _ in range(2):
        with pytest.raises(StudentCallError) as err:
            _call(guard_session, "crasher", "crash", seconds=4.0, guard=guard)
        assert err.value.kind == "crash" and "exited with status 3" in str(err.value), str(err.value)
    assert [_call(guard_session, "crasher", "ok", seconds=4.0, guard=guard) for _ in range(3)] == [1, 1, 1]
    mine = [e for e in guard_session.exchanges[first:] if e.module == "crasher"]
    imports = [e for e in mine if e.op == "import"]
    assert len(imports) == 3 and not any(e.stopped for e in mine), mine  # the first import and one after each crash
    spent_importing = sum(time_rules.charged(e) for e in imports)  # what the time rules charge them (no wait for a CPU)
    assert spent_importing <= guard.spent["crasher"] < spent_importing + 4.0  # both crashes together: less than one limit


def test_a_worker_that_stops_reading_cannot_block_the_grader(guard_session) -> None:
    import numpy as np

    from autograder.sandbox.session import StudentCallError

    assert _call(guard_session, "stopper", "stop_soon") == 1
    time.sleep(0.6)
    start = time.monotonic()
    with pytest.raises(StudentCallError, match="did not finish within the time limit of 2 s") as err:
        _call(guard_session, "stopper", "echo", np.zeros(1 << 20), seconds=2.0)  # 8 MB: more than a pipe holds
    assert err.value.kind == "timeout" and time.monotonic() - start < 15


def test_one_module_cannot_change_the_interpreter_of_the_next(guard_session) -> None:
    assert _call(guard_session, "polluter", "ping") == 1
    assert _call(guard_session, "observer", "look") == [False, "torch.float32"]


def test_processes_a_module_leaves_behind_die_before_the_next_module(guard_session) -> None:
    marker = f"hx{secrets.token_hex(6)}"
    assert _call(guard_session, "spawner", "spawn", marker) == 1
    deadline = time.monotonic() + 5
    while not marked_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marked_processes(marker), "the detached process did not start"
    _call(guard_session, "observer", "look")
    assert marked_processes(marker) == []


def test_each_problem_gets_its_own_output_window() -> None:
    from autograder.sandbox.output import OUTPUT_LIMIT, OutputBuffer

    buffer = OutputBuffer()
    buffer.feed(b"x" * (OUTPUT_LIMIT + 10))
    mark = buffer.mark()
    buffer.feed(b"second problem\n")
    assert buffer.since(mark) == "second problem\n"
