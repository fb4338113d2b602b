"""Hostile and broken submissions: the grader holds, the score stays honest, and nothing is lost.

Every case is a real submission graded by ``python -m autograder grade SUB --out OUT`` in a
process of its own, from a private copy of the project (so the tree the grader runs from can
be checked for changes while other work goes on in the real one). A case is either the
reference modules with ONE module replaced by a hostile one (``hostile/modules/<case>.py``
appended to the reference ``qkv_arithmetic.py``, so only what it redefines misbehaves), or a
submission *shape* built by ``hostile/submissions.py``. A session fixture grades the cases a
few at a time. To stay fast, most are graded with a manifest of the host and one witness (the
problem listed after it); the cases that could reach other problems (global tampering, killing
processes, the fork bomb, a zip full of extras) are graded with every problem of the manifest.
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
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from autograder import grading, manifest
from autograder.sandbox import policy

REPO = Path(__file__).resolve().parents[1]
HOSTILE = Path(__file__).resolve().parent / "hostile"
MODULES = HOSTILE / "modules"
_spec = importlib.util.spec_from_file_location("hostile_submissions", HOSTILE / "submissions.py")
submissions = sys.modules.setdefault("hostile_submissions", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(submissions)
HOST = "qkv_arithmetic"          # the smallest problem hosts the hostile code
CALL_SECONDS = 3                 # the host's per-call limit in the private copy (keeps timeouts cheap)
RESTART_SECONDS = 20             # what one worker (re)start may take on a loaded 2-core machine
POOL = 3                         # submissions graded at once (the machine has 2 cores; much of it is waiting)
SKIP_DIRS = {".venv", ".git", "__pycache__", ".pytest_cache", ".ruff_cache"}
PROTECTIONS = policy.detect()
SANDBOXED = bool(PROTECTIONS.bwrap) and (PROTECTIONS.drop_user or not PROTECTIONS.is_root)


@dataclass(frozen=True)
class Case:
    """One hostile submission and what an honest grader makes of it."""

    name: str
    honest: str                     # the host problem's honest score: "twin" (argmax_attention broken), "zero" or "full"
    says: tuple[str, ...] = ()      # patterns the student must read in the host problem's failed tests (or the notes)
    shape: bool = False             # built by hostile/submissions.py rather than a module override
    others: str = "full"            # what every other problem must keep
    sandbox: bool = True            # meaningful only with bubblewrap and a dropped user
    exclusive: bool = False         # uses machine-wide resources (processes of the sandbox user, memory): run alone
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
    Case("forge_stdout", "twin", (CALL, r"got None")),
    Case("forge_reply_pipe", "twin", (CALL, r"sent back something unreadable|could not be read")),
    # Comparison tampering: comparisons happen in the grader, on plain data.
    Case("tamper_patch_checks", "twin", (CALL, r"entries differ"), full=True),
    Case("tamper_global_state", "twin", (CALL, r"got None"), full=True),
    Case("tamper_tensor_subclass", "twin", (CALL, r"entries differ")),
    Case("tamper_ndarray_subclass", "twin", (CALL, r"entries differ")),
    # Stealing: the reference and the tests are not visible from the sandbox.
    Case("steal_search", "twin", (CALL, r"entries differ")),
    Case("symlink_dir", "zero", (r"qkv_arithmetic\.py could not be read: it is a link",), shape=True, sandbox=False),
    Case("symlink_folder", "zero", (r"qkv_arithmetic\.py was not found",), shape=True, others="zero", sandbox=False),
    Case("symlink_zip", "zero", (r"qkv_arithmetic\.py could not be read: it is a symbolic link",), shape=True, sandbox=False),
    # Attacking the grader.
    Case("attack_kill", "twin", (CALL, r"killed by signal SIG(TERM|KILL)"), slow=True, exact=False, full=True),
    Case("attack_write", "twin", (CALL, r"got None")),
    # Resource abuse.
    Case("res_busy_loop", "twin", (CALL, r"did not finish within the time limit of 3 s and was stopped"), slow=True),
    Case("res_ignore_signals", "twin", (CALL, r"did not finish within the time limit of 3 s and was stopped"), slow=True),
    Case("res_sleep", "twin", (CALL, r"did not finish within the time limit of 3 s and was stopped"), slow=True),
    Case("res_import_hang", "zero", (r"qkv_arithmetic\.py could not be imported: .*did not finish within 3 s",), slow=True),
    Case("res_memory", "twin", (CALL, r"raised MemoryError", r"raised RuntimeError: .*alloc"), exclusive=True),
    Case("res_fork_bomb", "twin", (CALL, r"got None"), exclusive=True, full=True),
    Case("res_print_flood", "twin", (CALL, r"got None")),
    Case("res_fill_tmp", "twin", (CALL, r"got None")),
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
    """The private project copy the grader runs from, and the honest baselines."""

    root: Path
    project: Path
    assignment: manifest.Assignment
    sources: dict[str, bytes]
    snapshot: dict
    full: dict[str, float] = field(default_factory=dict)
    twin_score: float = -1.0
    reference_seconds: float = 0.0

    def bound(self) -> float:
        """Seconds a grading run may take: the honest run (with room for a loaded machine) plus the
        grader's stated worst case for the host problem (its time budget, one call over it, and a
        worker restart per stopped call)."""
        host_only = dataclasses.replace(self.assignment, problems=(self.assignment.problem(HOST),))
        return 3 * self.reference_seconds + 30 + grading.time_bound(host_only, RESTART_SECONDS)


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
    autograder_dir_before: bool
    autograder_dir_after: bool
    again: Run | None = None


def snapshot(root: Path) -> dict[str, tuple]:
    """(kind, mtime, size) of every path under ``root`` (directories by presence only), skipping caches and the venv."""
    found: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            info = path.lstat()
            rel = str(path.relative_to(root))
            found[rel] = ("dir",) if path.is_dir() and not path.is_symlink() else ("file", info.st_mtime_ns, info.st_size)
    return found


def marked_processes(marker: str) -> list[str]:
    """Processes whose command line or environment carries ``marker``."""
    token = marker.encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        for what in ("cmdline", "environ"):
            try:
                data = Path(f"/proc/{pid}/{what}").read_bytes()
            except OSError:
                continue
            if token in data:
                found.append(f"pid {pid}: {data[:200]!r}")
                break
    return found


def host_tmp_hits(marker: str) -> list[str]:
    hits = [str(p) for p in Path("/tmp").iterdir() if marker in p.name]
    for name in ("/tmp/results.json", "/autograder/results/results.json"):
        try:
            if marker in Path(name).read_text(errors="replace"):
                hits.append(name)
        except OSError:
            pass
    return hits


def grade(lab: Lab, submission: Path, out: Path, tmpdir: Path, measure: bool = False) -> Run:
    """``python -m autograder grade`` in a process of its own, from the project copy."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "PYTEST_"))}
    env.update(TMPDIR=str(tmpdir), PYTHONDONTWRITEBYTECODE="1")
    cmd = [sys.executable, *(["-c", MEASURED] if measure else ["-m", "autograder"]), "grade", str(submission), "--out", str(out), "-q"]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=lab.project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=lab.bound())
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        stdout, stderr = proc.communicate()
        timed_out = True
    seconds = time.monotonic() - start
    raw = out.read_bytes() if out.is_file() else b""
    try:
        results = json.loads(raw)
    except ValueError:
        results = None
    peak = re.search(rb"peak-rss-kb (\d+)", stderr)
    return Run(results, raw, proc.returncode, stdout.decode(errors="replace")[-5000:], stderr.decode(errors="replace")[-5000:], seconds, timed_out,
               int(peak.group(1)) / 1024 if peak else None)


def module_source(lab: Lab, case: Case, marker: str, scratch: Path, out: Path) -> bytes:
    """The reference host module followed by the case's hostile override, placeholders filled in."""
    if case.name in GENERATED:
        return lab.sources[HOST] + GENERATED[case.name]
    text = (MODULES / f"{case.name}.py").read_text(encoding="utf-8")
    for key, value in {"__MARKER__": marker, "__PROJECT__": str(lab.project), "__REAL_PROJECT__": str(REPO),
                       "__OUT__": str(out), "__SCRATCH__": str(scratch)}.items():
        text = text.replace(key, value)
    return lab.sources[HOST] + b"\n\n# ---- hostile part ----\n" + text.encode()


def build(lab: Lab, case: Case, marker: str, folder: Path, scratch: Path, out: Path) -> Path:
    folder.mkdir(parents=True)
    if case.shape:
        ctx = submissions.Context(marker=marker, scratch=scratch, project=lab.project)
        return submissions.BUILDERS[case.name](folder, dict(lab.sources), ctx)
    sub = folder / "submission"
    sub.mkdir()
    for module, source in lab.sources.items():
        (sub / f"{module}.py").write_bytes(source)
    (sub / f"{HOST}.py").write_bytes(module_source(lab, case, marker, scratch, out))
    return sub


def run_case(lab: Lab, case: Case) -> Outcome:
    """Build, grade and inspect one case."""
    root = lab.root / "cases" / case.name
    marker = f"hx{secrets.token_hex(6)}"
    scratch, out_dir, tmpdir = root / "scratch", root / "out", root / "tmp"
    for folder in (scratch, out_dir, tmpdir):
        folder.mkdir(parents=True)
    (scratch / "keep.txt").write_text("scratch\n")
    (out_dir / "previous.txt").write_text("something the grader must leave alone\n")
    out = out_dir / "results.json"
    submission = build(lab, case, marker, root / "build", scratch, out)
    out_before, scratch_before = snapshot(out_dir), snapshot(scratch)
    autograder_before = os.path.exists("/autograder")
    run = grade(lab, submission, out, tmpdir, measure=bool(case.peak_mb))
    outcome = Outcome(
        case, lab, marker, run, out_before, snapshot(out_dir), scratch_before, snapshot(scratch),
        sorted(p for p in os.listdir(tmpdir) if not p.startswith("torchinductor_")), marked_processes(marker), host_tmp_hits(marker),
        autograder_before, os.path.exists("/autograder"),
    )
    if case.name in TWICE:
        outcome.again = grade(lab, submission, out_dir / "again.json", tmpdir)
    return outcome


def _make_lab(root: Path, lean: bool) -> Lab:
    """Copy the project; lower the host's call limit; a lean lab lists only the host and the next problem."""
    project = root / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("autograder", "assignments", "reference"):
        shutil.copytree(REPO / name, project / name, ignore=ignore, symlinks=True)
    yaml_path = project / "assignments" / HOST / "problem.yaml"
    text, count = re.subn(r"call_seconds:\s*[0-9.]+", f"call_seconds: {CALL_SECONDS}", yaml_path.read_text(encoding="utf-8"))
    assert count == 1, f"{yaml_path}: no call_seconds to lower"
    yaml_path.write_text(text, encoding="utf-8")
    manifest_path = project / "assignments" / "assignment.yaml"
    listed = manifest.load(manifest_path)
    assert HOST in listed.modules, f"{HOST} must be listed in the manifest to host the hostile cases"
    if lean:
        # The host and one witness (the problem listed after it) stand for "every other problem".
        i = listed.modules.index(HOST)
        keep = [HOST] + listed.modules[i + 1 : i + 2] if i + 1 < len(listed.modules) else [HOST] + listed.modules[:i][:1]
        data = yaml.safe_load(manifest_path.read_text(encoding="utf-8"))
        data["problems"] = keep
        data["total_points"] = sum(listed.problem(m).points for m in keep)
        manifest_path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assignment = manifest.load(manifest_path)
    sources = {m: (project / "reference" / f"{m}.py").read_bytes() for m in assignment.modules}
    lab = Lab(root, project, assignment, sources, snapshot(project))
    lab.full = {p.module: p.points for p in assignment.problems}
    return lab


def _baseline(lab: Lab, twin: bool) -> None:
    """Grade the reference (full marks, timing) and the twin: the reference with argmax_attention broken honestly."""
    for name, override in (("reference", b""), ("twin", TWIN_OVERRIDE))[: 2 if twin else 1]:
        sub = lab.root / "baseline" / name
        sub.mkdir(parents=True)
        for module, source in lab.sources.items():
            (sub / f"{module}.py").write_bytes(source + (override if module == HOST else b""))
        tmpdir = lab.root / "baseline" / f"{name}-tmp"
        tmpdir.mkdir()
        lab.reference_seconds = lab.reference_seconds or 120.0
        run = grade(lab, sub, lab.root / "baseline" / f"{name}.json", tmpdir)
        assert run.results is not None, f"grading the {name} failed:\n{run.stderr}"
        scores = problem_scores(run.results)
        if name == "reference":
            assert scores == lab.full, f"the reference must get full marks: {scores} vs {lab.full}"
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


def _selected(session: pytest.Session) -> list[Case]:
    names = {item.callspec.params["case"].name for item in session.items
             if hasattr(item, "callspec") and isinstance(item.callspec.params.get("case"), Case)}
    return [c for c in CASES if c.name in names and (SANDBOXED or not c.sandbox)]


@pytest.fixture(scope="session")
def outcomes(tmp_path_factory, request) -> dict[str, Outcome]:
    """Grade every selected case: most against a lean lab, a few against the full manifest."""
    cases = _selected(request.session)
    lean = _make_lab(tmp_path_factory.mktemp("hostile-lean"), lean=True)
    _baseline(lean, twin=True)
    labs = {False: lean}
    if any(c.full for c in cases):
        labs[True] = _make_lab(tmp_path_factory.mktemp("hostile-full"), lean=False)
        _baseline(labs[True], twin=False)
        labs[True].twin_score = lean.twin_score
    shared = sorted((c for c in cases if not c.exclusive), key=lambda c: not c.slow)
    with ThreadPoolExecutor(POOL) as pool:
        done = dict(zip((c.name for c in shared), pool.map(lambda c: run_case(labs[c.full], c), shared)))
    for case in (c for c in cases if c.exclusive):
        done[case.name] = run_case(labs[case.full], case)
    return done


def _outcome(outcomes: dict[str, Outcome], case: Case) -> Outcome:
    if case.sandbox and not SANDBOXED:
        pytest.skip(f"needs bubblewrap and a dropped user; {PROTECTIONS.describe()}")
    return outcomes[case.name]


def _host_failures(results: dict) -> list[str]:
    return [t["output"] for t in results["tests"] if t["name"].startswith(f"{HOST}: ") and t["status"] == "failed"]


def _printed(results: dict, module: str = HOST) -> str:
    return "".join(t["output"] for t in results["tests"] if t["name"] == f"{module}: output printed by your code")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_grader_finishes_and_writes_valid_results(case: Case, outcomes) -> None:
    o = _outcome(outcomes, case)
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
    assert f"score {run.results['score']:g}/" in run.stdout, "the grader's own summary line must match results.json"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_score_is_the_honest_one(case: Case, outcomes) -> None:
    o = _outcome(outcomes, case)
    lab, results = o.lab, o.run.results
    assert results is not None
    scores = problem_scores(results)
    honest = {"full": lab.full[HOST], "zero": 0.0, "twin": lab.twin_score}[case.honest]
    expected = {m: (honest if m == HOST else (0.0 if case.others == "zero" else full)) for m, full in lab.full.items()}
    assert scores.get(HOST, 0.0) <= honest, f"the trick raised the score of {HOST}: {scores.get(HOST)} > {honest}"
    if not case.exact:  # killing the worker's first process lands a moment later, maybe in another call of the host
        expected[HOST] = scores.get(HOST, 0.0)
    assert scores == expected, "problems the trick did not touch keep their points; the host gets exactly its honest score"
    assert results["score"] == pytest.approx(sum(expected.values()))


@pytest.mark.parametrize("case", CASES, ids=str)
def test_nothing_outside_the_sandbox_changes(case: Case, outcomes) -> None:
    o = _outcome(outcomes, case)
    new_in_out = set(o.out_after) - set(o.out_before)
    assert new_in_out <= {"results.json", "again.json"}, f"unexpected files next to results.json: {new_in_out}"
    assert {k: v for k, v in o.out_after.items() if k in o.out_before} == o.out_before, "files in the --out folder changed"
    assert o.scratch_after == o.scratch_before, "the scratch folder changed"
    assert o.grader_tmp_left == [], f"the grader left temporary files behind: {o.grader_tmp_left}"
    assert o.processes == [], f"processes of the submission outlived grading: {o.processes}"
    assert o.host_tmp_hits == [], f"files of the submission appeared outside the sandbox: {o.host_tmp_hits}"
    assert o.autograder_dir_after == o.autograder_dir_before, "/autograder appeared or vanished"


@pytest.mark.parametrize("case", [c for c in CASES if c.says], ids=str)
def test_student_reads_what_went_wrong(case: Case, outcomes) -> None:
    results = _outcome(outcomes, case).run.results
    assert results is not None
    failures = _host_failures(results)
    text = "\n".join(failures) + "\n" + results["output"]
    for pattern in case.says:
        assert re.search(pattern, text), f"no message says {pattern!r}; the student reads:\n{text[:3000]}"
    for output in failures if case.others != "zero" else []:  # a submission-wide failure is named once, in the notes
        assert HOST in output, f"a failed test does not name the problem:\n{output}"


@pytest.mark.parametrize("name", TWICE)
def test_grading_twice_gives_the_same_results(name: str, outcomes) -> None:
    o = outcomes[name]
    assert o.again is not None and o.again.results is not None

    def strip(results: dict) -> dict:
        return {k: v for k, v in results.items() if k != "execution_time"}

    assert strip(o.run.results) == strip(o.again.results)


def test_sandbox_hides_the_project_and_the_tests(outcomes) -> None:
    o = _outcome(outcomes, next(c for c in CASES if c.name == "steal_search"))
    printed = _printed(o.run.results)
    assert "steal: project visible: False - real project reference visible: False - usable files found: []" in printed, printed[:2000]


def test_attacks_from_inside_reach_only_the_private_sandbox(outcomes) -> None:
    for name in ("attack_write", "forge_files"):
        o = _outcome(outcomes, next(c for c in CASES if c.name == name))
        printed = _printed(o.run.results)
        lists = re.findall(r"(?:wrote|forged): \[(.*?)\]", printed)
        assert lists, printed[:2000]
        reached = {p.strip(" '\"") for line in lists for p in line.split(",") if p.strip()}
        # Inside the sandbox /tmp is a private, size-capped tmpfs (so even this run's /tmp/pytest-... paths are private there).
        outside = {p for p in reached if not p.startswith("/tmp/")}
        assert not outside, f"{name} wrote outside the sandbox's private /tmp: {outside}"


def test_fork_bomb_is_capped(outcomes) -> None:
    o = _outcome(outcomes, next(c for c in CASES if c.name == "res_fork_bomb"))
    counts = [int(n) for n in re.findall(r"spawned (\d+) processes", _printed(o.run.results))]
    assert counts and max(counts) < 600, f"the process limit did not stop the fork bomb: {counts}"


def test_zip_bombs_are_refused_quickly_and_cheaply(outcomes) -> None:
    for case in (c for c in CASES if c.peak_mb):
        run = _outcome(outcomes, case).run
        assert run.peak_mb is not None, run.stderr
        assert run.peak_mb < case.peak_mb, f"{case.name}: the grader's resident size reached {run.peak_mb:.0f} MB"
        assert run.results["execution_time"] < 60


def test_the_memory_backed_tmp_is_capped(outcomes) -> None:
    o = _outcome(outcomes, next(c for c in CASES if c.name == "res_fill_tmp"))
    if not policy.bwrap_sizes_tmpfs(PROTECTIONS.bwrap):
        pytest.skip("this bubblewrap cannot cap the size of a tmpfs (it needs 0.7 or later, not setuid)")
    printed = _printed(o.run.results)
    filled = [int(n) for n in re.findall(r"filled /tmp with (\d+) MB", printed)]
    huge = [int(n) for n in re.findall(r"huge file stopped at (\d+) MB", printed)]
    assert filled and huge, printed[:2000]
    assert max(filled + huge) <= policy.TMP_MB, f"the sandbox's /tmp took {max(filled + huge)} MB"


def test_printing_floods_are_cut(outcomes) -> None:
    o = _outcome(outcomes, next(c for c in CASES if c.name == "res_print_flood"))
    assert "more bytes of output dropped" in _printed(o.run.results)


def test_project_copies_are_unchanged(outcomes) -> None:
    for lab in {id(o.lab): o.lab for o in outcomes.values()}.values():
        assert snapshot(lab.project) == lab.snapshot, f"{lab.project} changed"


def test_real_project_has_no_trace(outcomes) -> None:
    markers = [o.marker for o in outcomes.values()]
    names = [str(p) for top in (REPO, REPO / ".venv") for p in top.iterdir() if any(m in p.name for m in markers)]
    for dirpath, dirnames, filenames in os.walk(REPO):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        names += [os.path.join(dirpath, f) for f in dirnames + filenames if any(m in f for m in markers)]
    assert names == []


# ---- The guards behind the guarantees, tested directly on one worker session ----

GUARD_MODULES = {
    "slowpoke": "import time\n\n\ndef nap(seconds):\n    time.sleep(seconds)\n    return seconds\n",
    "stopper": ("import os\nimport signal\nimport threading\n\n\ndef stop_soon():\n"
                "    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGSTOP)).start()\n    return 1\n\n\n"
                "def echo(x):\n    return x\n"),
    "polluter": "import builtins\n\nimport torch\n\ntorch.set_default_dtype(torch.float16)\nbuiltins.POLLUTED = True\n\n\ndef ping():\n    return 1\n",
    "observer": ("def look():\n    import builtins\n\n    import torch\n\n"
                 "    return [hasattr(builtins, 'POLLUTED'), str(torch.get_default_dtype())]\n"),
    "spawner": ("import subprocess\n\n\ndef spawn(marker):\n"
                "    subprocess.Popen(['/bin/sh', '-c', 'sleep 1000', marker], start_new_session=True)\n    return 1\n"),
}


@pytest.fixture(scope="module")
def guard_session():
    from autograder import submission
    from autograder.sandbox.client import WorkerSession

    session = WorkerSession(memory_mb=2048, start_now=True)
    session.switch(session.stage(submission.Located(sources={k: v.encode() for k, v in GUARD_MODULES.items()})))
    yield session
    session.close()


def _call(session, module: str, func: str, *args, seconds: float = 5.0):
    return session.call(module, func, args, {}, seconds, f"{module}.{func}()")


def test_time_budget_stops_a_module_that_keeps_running_long(guard_session) -> None:
    from autograder.sandbox.client import StudentCallError

    guard_session.set_budget("slowpoke", 1.0)
    done = 0
    with pytest.raises(StudentCallError, match=r"was not run: the calls into slowpoke\.py have used up their time budget of 1 s") as err:
        for _ in range(10):
            _call(guard_session, "slowpoke", "nap", 0.4)
            done += 1
    assert err.value.kind == "budget" and 2 <= done <= 3


def test_a_worker_that_stops_reading_cannot_block_the_grader(guard_session) -> None:
    import numpy as np

    from autograder.sandbox.client import StudentCallError

    assert _call(guard_session, "stopper", "stop_soon") == 1
    time.sleep(0.6)
    start = time.monotonic()
    with pytest.raises(StudentCallError, match="did not finish within the time limit of 2 s") as err:
        _call(guard_session, "stopper", "echo", np.zeros(1 << 20), seconds=2.0)  # 8 MB: more than a pipe holds
    assert err.value.kind == "timeout" and time.monotonic() - start < 15


def test_one_module_cannot_change_the_interpreter_of_the_next(guard_session) -> None:
    assert _call(guard_session, "polluter", "ping") == 1
    assert _call(guard_session, "observer", "look") == [False, "torch.float32"]


@pytest.mark.skipif(not SANDBOXED, reason=f"needs bubblewrap's PID namespace; {PROTECTIONS.describe()}")
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
    from autograder.sandbox.client import OUTPUT_LIMIT, OutputBuffer

    buffer = OutputBuffer()
    buffer.feed(b"x" * (OUTPUT_LIMIT + 10))
    mark = buffer.mark()
    buffer.feed(b"second problem\n")
    assert buffer.since(mark) == "second problem\n"
