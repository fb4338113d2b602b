"""One submission cannot reach another, forge the grader's state, or learn from its timing; every test starts from a
state the grader has checked itself.

In every mode whose defences differ (``hostile/modes.py``, the same-user mode left out: there nothing separates
student code from the grader), one ``grade-all --jobs 1`` run grades, in this order, four attackers
(``hostile/isolation/*.py`` appended to the reference's host module, each attack in ``argmax_attention``, so each
attacker's honest score is the twin's), then a spy that looks for what they left, the reference and the twin. The
later submissions must score exactly as they do alone, the attackers no more than honestly, and nothing of an attacker
may outlive it (``docs/threat_model.md`` lists each attack and what holds it). Otter's world-readable copy of the
harness and terminal escapes have tests of their own below, and the forged header also runs in the emulated Gradescope
container.

Two more attackers join the same batch, before the same victims (``hostile/clean_state``): ``state`` leaves every mark
it can for the next test and submission (scratch made unlistable, its pipes' size, flags and owner, the first process's
scheduling and limits) and answers right only when it finds one; ``parent`` reopens the first process's pipes through
/proc to forge resets and faults, and stops it after each reply. Hoarding replies is ``res_hoard_replies`` in
``test_hostile.py``, where the grader's peak memory is measured.

The boundary adds ``cross`` (``hostile/boundary``) to the same batch: marks on the scratch folder itself (its times, a
user.* attribute), the box's submissions folder made 000 where its user owns it, a printed line of deep brackets
shaped like the worker's place marker, and garbage on its reply pipe after each of them.
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autograder.model import paths
from autograder.sandbox import policy, runtime
from autograder.sandbox.worker import cleanup
from tests.hostile import test_hostile as th

ISOLATION = th.HOSTILE / "isolation"
CLEAN_STATE = th.HOSTILE / "clean_state"
BOUNDARY = th.HOSTILE / "boundary"
ATTACKERS = ("wire", "disk", "info", "oracle", "state", "parent", "cross")
PART_FOLDERS = {"state": CLEAN_STATE, "parent": CLEAN_STATE, "cross": BOUNDARY}  # the others: ISOLATION
MARKED = ("state", "spy", "cross")  # the parts that leave or look for marks (clean_state/marks.py above them)
ORDER = [f"a{i}-{name}" for i, name in enumerate(ATTACKERS, 1)] + ["v1-spy", "v2-reference", "v3-twin"]
MODES = [m for m in th.MODES if th._lacks(m) != "same-user"]
BATCH_SECONDS = 145  # stands in for one honest run in the lab's time bound: the batch grades ten submissions


class Batch:
    """One mode's grade-all run over the attackers and the later submissions."""

    def __init__(self, lab: th.Lab, marker: str, run: th.Run, results: dict[str, dict | None], leftovers: list[int], ipc: list) -> None:
        self.lab, self.marker, self.run, self.results, self.leftovers, self.ipc = lab, marker, run, results, leftovers, ipc

    def scores(self, name: str) -> dict[str, float]:
        results = self.results[name]
        assert results is not None, f"no results for {name}:\n{self.run.stderr}"
        return th.problem_scores(results)

    def printed(self, name: str) -> str:
        return th._printed(self.results[name])

    def failures(self, name: str) -> str:
        return "\n".join(th._host_failures(self.results[name]))


def _source(lab: th.Lab, part: str, marker: str) -> bytes:
    text = (PART_FOLDERS.get(part, ISOLATION) / f"{part}.py").read_text(encoding="utf-8")
    if part in MARKED:  # the marks the attackers leave, and how they are found
        text = (CLEAN_STATE / "marks.py").read_text(encoding="utf-8") + "\n\n" + text
    text = text.replace("__MARKER__", marker).replace("__PROJECT__", str(lab.project))
    return lab.sources[th.HOST] + b"\n\n# ---- hostile part ----\n" + text.encode()


def _build(lab: th.Lab, folder: Path, marker: str) -> None:
    lab.folder(folder)
    for name in ORDER:
        sub = folder / name
        sub.mkdir()
        for module, source in lab.sources.items():
            (sub / f"{module}.py").write_bytes(source)
        part = name.split("-", 1)[1]
        if part in (*ATTACKERS, "spy"):
            (sub / f"{th.HOST}.py").write_bytes(_source(lab, part, marker))
        elif part == "twin":
            (sub / f"{th.HOST}.py").write_bytes(lab.sources[th.HOST] + th.TWIN_OVERRIDE)
    if lab.uid is not None:
        th.modes.chown_tree(folder, lab.uid)


def _grade_batch(mode, tmp_path_factory) -> Batch:
    uid = next(_users()) if mode.as_user else None
    root = Path(tempfile.mkdtemp(prefix=f"hostile2-{mode}-", dir="/tmp")) if uid is not None else tmp_path_factory.mktemp(f"hostile2-{mode}")
    lab = th._make_lab(root, lean=True, mode=mode, uid=uid)
    lab.reference_seconds = BATCH_SECONDS
    marker = f"hx{secrets.token_hex(6)}"
    _build(lab, root / "batch", marker)
    out_dir, tmpdir = lab.folder(root / "out"), lab.folder(root / "tmp")
    run = th.grade(lab, root / "batch" / ORDER[0], out_dir / "grades.csv", tmpdir, command="grade-all")
    results = {}
    for name in ORDER:
        results[name] = th._read_results(out_dir / "results" / f"{name}.json")[0]
    return Batch(lab, marker, run, results, [], [])


KEY = 0x18180018  # the SysV key of hostile/isolation/wire.py


def _ipc_with_key(key: int) -> list[str]:
    found = []
    for kind in ("shm", "msg", "sem"):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except OSError:
            continue
        found += [f"{kind}: {line.split()[:2]}" for line in lines[1:] if line.split() and int(line.split()[0]) == key]
    return found


@functools.cache
def _users():
    """The second half of this process's block of test uids (the first half is test_hostile.py's)."""
    base = th.modes.user_uid_base()
    return iter(range(base + 500, base + 1000))


@pytest.fixture(scope="module")
def batches(tmp_path_factory) -> dict[str, Batch]:
    if os.geteuid() == 0:
        runtime.make_private([th.REPO])
    with ThreadPoolExecutor(2) as pool:
        done = dict(zip((m.name for m in MODES), pool.map(lambda m: _grade_batch(m, tmp_path_factory), MODES)))
    ipc = _ipc_with_key(KEY)  # once every batch is over (they run side by side and use the same key)
    for batch in done.values():
        batch.leftovers, batch.ipc = th.marked_processes(batch.marker), ipc
    yield done
    for batch in done.values():
        if str(batch.lab.root).startswith("/tmp/hostile2-"):
            cleanup.remove_tree(str(batch.lab.root))


@pytest.fixture(scope="module")
def twin_alone(batches) -> float:
    """The twin's host score graded alone (``grade``), in the strongest mode."""
    lab = batches[MODES[0].name].lab
    sub = lab.root / "alone-twin"
    _copy = lab.root / "batch" / "v3-twin"
    lab.folder(sub)
    for path in _copy.iterdir():
        (sub / path.name).write_bytes(path.read_bytes())
    if lab.uid is not None:
        th.modes.chown_tree(sub, lab.uid)
    run = th.grade(lab, sub, lab.folder(lab.root / "alone-out") / "results.json", lab.folder(lab.root / "alone-tmp"))
    assert run.results is not None, run.stderr
    score = th.problem_scores(run.results)[th.HOST]
    assert 0 < score < lab.full[th.HOST]
    return score


def _modes(extra=None) -> list:
    return [pytest.param(m, id=str(m), marks=(extra(m) if extra else [])) for m in MODES]


@pytest.mark.parametrize("mode", _modes())
def test_batch_finishes_with_results_for_every_submission(mode, batches) -> None:
    batch = batches[mode.name]
    assert not batch.run.timed_out and batch.run.returncode == 0, batch.run.stderr
    missing = [name for name, results in batch.results.items() if results is None]
    assert missing == [], f"no results.json for {missing}:\n{batch.run.stderr}"


@pytest.mark.parametrize("mode", _modes())
def test_later_submissions_score_as_they_would_alone(mode, batches, twin_alone) -> None:
    batch = batches[mode.name]
    full = batch.lab.full
    assert batch.scores("v1-spy") == full, batch.failures("v1-spy")
    assert batch.scores("v2-reference") == full, batch.failures("v2-reference")
    assert batch.scores("v3-twin") == {**full, th.HOST: twin_alone}, batch.failures("v3-twin")


@pytest.mark.parametrize("mode", _modes())
def test_attackers_get_their_honest_score_and_no_more(mode, batches, twin_alone) -> None:
    """Exactly the twin's, but for ``parent`` (where no layer refuses its SIGSTOP) and for ``state`` in ``root-bare``
    (where no seccomp refuses its renice, SCHED_IDLE and limit of the first process): each worker they change is
    replaced and charged to its module as a call stopped at its limit, which may leave its other calls without time;
    and for ``cross``, whose every call ends in garbage on its reply pipe (it scores what the twin's failures allow)."""
    batch = batches[mode.name]
    for name in ORDER[: len(ATTACKERS)]:
        honest = {**batch.lab.full, th.HOST: twin_alone}
        if name.endswith(("-parent", "-cross")) or (name.endswith("-state") and mode.name == "root-bare"):
            scores = batch.scores(name)
            assert scores.keys() == honest.keys() and all(scores[k] <= honest[k] for k in honest), f"{name}: {scores}"
            continue
        assert batch.scores(name) == honest, f"{name}: {batch.failures(name)}"


@pytest.mark.parametrize("mode", _modes())
def test_nothing_of_an_attacker_outlives_it(mode, batches) -> None:
    """No process of a sandbox uid (a child that stayed after ``reset``), no SysV object, nothing in the spy's scratch
    folder."""
    batch = batches[mode.name]
    assert "spy found: []" in batch.printed("v1-spy"), batch.printed("v1-spy")[:2000]
    assert batch.leftovers == [], f"the attacker's detached process outlived grading: {batch.leftovers}"
    assert batch.ipc == [], f"the attacker's SysV IPC objects outlived grading: {batch.ipc}"


@pytest.mark.parametrize("mode", _modes())
def test_forged_replies_reach_no_one(mode, batches) -> None:
    """The module's process holds no pipe of the grader: what it forges goes to the worker's first process, which
    refuses it as an unreadable answer (forged ids, a non-blocking request pipe, a forged header or fault); SysV IPC is
    refused where seccomp is on."""
    batch = batches[mode.name]
    text = batch.failures("a1-wire")
    assert "could not grade" not in text and "SandboxFault" not in batch.run.stderr
    assert re.search(r"sent back something unreadable", text), text[:2000]
    if mode.protections.seccomp:
        assert re.search(r"wire: shmget -1 msgget -1", batch.printed("a1-wire")), batch.printed("a1-wire")[:2000]


@pytest.mark.parametrize("mode", _modes())
def test_deep_trees_many_links_and_late_writes_are_stopped(mode, batches) -> None:
    """Deep trees, many hard links, writes between size checks: the walks are iterative and capped, the writes bounded, the victims after are on time."""
    batch = batches[mode.name]
    text = batch.failures("a2-disk")
    assert re.search(rf"made folders more than {cleanup.MAX_DEPTH} levels deep", text), text[:3000]
    assert re.search(rf"made more than {cleanup.MAX_ENTRIES} files and folders", text), text[:3000]
    written = [int(n) for n in re.findall(r"thread wrote (\d+) MB", batch.printed("a2-disk"))]
    assert max(written, default=0) < 400, f"a thread of the module wrote {max(written)} MB after its call returned"
    if mode.protections.bwrap and policy.bwrap_sizes_tmpfs(mode.protections.bwrap):
        assert max(written, default=0) <= policy.TMP_MB


def _info_limits(mode) -> list:
    if mode.protections.bwrap:
        return []
    return [pytest.mark.xfail(reason=f"mode {mode}: {INFO_CANNOT_STOP}", strict=True)]


INFO_CANNOT_STOP = ("without a PID namespace (bubblewrap), /proc shows other processes' command lines; without a mount "
                    "namespace or private folders, stat() of a path Landlock hides still answers (Landlock governs opening)")


@pytest.mark.parametrize("mode", _modes())
def test_sockets_without_socket_and_inotify_are_refused(mode, batches) -> None:
    printed = batches[mode.name].printed("a3-info")
    assert "info:" in printed, printed[:2000]
    if not mode.protections.seccomp:
        pytest.skip(f"mode {mode} has no seccomp filter (docs/threat_model.md: root-bare)")
    assert "socketpair: refused" in printed and "inotify: refused" in printed, printed[:2000]


@pytest.mark.parametrize("mode", _modes(_info_limits))
def test_hidden_folders_and_other_graders_are_not_visible(mode, batches) -> None:
    printed = batches[mode.name].printed("a3-info")
    assert "stat hidden: refused" in printed, printed[:2000]
    assert "grader command lines seen: 0" in printed, printed[:2000]


@pytest.mark.parametrize("mode", _modes())
def test_no_state_crosses_from_one_test_to_the_next(mode, batches, twin_alone) -> None:
    """The timing oracle: a module that answers right once it has been called before in its process gains nothing: each test
    runs in a fresh process (checked by the attackers' score above; here its failures say what was called)."""
    text = batches[mode.name].failures("a4-oracle")
    assert re.search(th.CALL, text) and "got None" in text, text[:2000]


# ---- Every test starts from a state the grader has checked itself ----


def _refuses_acting_on_others(mode) -> bool:
    """Whether a layer refuses a test's process to act on another process (seccomp names the first process)."""
    return mode.protections.seccomp


@pytest.mark.parametrize("mode", _modes())
def test_no_mark_of_a_test_reaches_the_next_test_or_submission(mode, batches) -> None:
    """Scratch made unlistable (and once too deep), the pipes' size, flags and owner, the first
    process's nice value, policy and limits. The attacker never finds a mark it left (its score, checked above, would
    show it), nor does the spy; the marks were left where no layer refuses them."""
    batch = batches[mode.name]
    printed = batch.printed("a5-state")
    lines = re.findall(r"state: found (\[.*?\]); left (\[.*?\])", printed)
    assert lines, printed[:2000]
    assert all(found == "[]" for found, _left in lines), printed[:3000]
    left = " ".join(left for _found, left in lines)
    assert "'counter'" in left and "'pipe size'" in left, left[:2000]
    if _refuses_acting_on_others(mode):
        for what in ("renice first", "SCHED_IDLE first", "limit first", "renice all", "SIGIO owner"):
            assert f"'{what} refused (1)'" in left, f"{what}: {left[:2000]}"
    text = batch.failures("a5-state")
    assert re.search(rf"made folders more than {cleanup.MAX_DEPTH} levels deep", text), text[:2000]
    assert "spy found: []" in batch.printed("v1-spy"), batch.printed("v1-spy")[:2000]


def _stop_refused(mode) -> bool:
    return mode.protections.seccomp or mode.protections.landlock >= 6


@pytest.mark.parametrize("mode", _modes())
def test_a_test_cannot_reach_the_worker_it_runs_in(mode, batches) -> None:
    """/proc/<first>/fd cannot be opened (the first process is not dumpable; a nested Landlock domain
    where Landlock runs), so no reset or fault is forged; SIGSTOP is refused by the nested domain (Landlock ABI 6) or
    the filter naming the first process (seccomp), and elsewhere the grader sees the stopped worker at once and
    replaces it (the victims above score as alone, and the batch ends within its bound)."""
    batch = batches[mode.name]
    printed = batch.printed("a6-parent")
    assert re.search(r"parent: /proc/<first>/fd opened \[\]", printed), printed[:2000]
    assert "opened [0" not in printed and not re.search(r"opened \[\d", printed), printed[:2000]
    stops = re.findall(r"parent: SIGSTOP (.*)", printed)
    if _stop_refused(mode):
        assert stops and all(s.startswith("refused") for s in stops), printed[:2000]
    assert "could not grade" not in batch.failures("a6-parent") and "SandboxFault" not in batch.run.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="a uid of its own needs a root grader")
def test_a_stopped_worker_is_replaced_and_charged_to_its_module(monkeypatch) -> None:
    """Where nothing refuses SIGSTOP (root without Landlock or seccomp), the reset after the test finds the first process
    stopped, replaces the worker without waiting for its answer, and charges the module a call stopped at its limit."""
    from autograder.grading import time_rules
    from autograder.sandbox.session import WorkerSession

    monkeypatch.setattr(policy, "detect", lambda: policy.Protections(bwrap=None, is_root=True, landlock=0, seccomp=False))
    stopper = ("import os\nimport signal\nimport time\n\n\ndef stop_parent():\n    first = os.getppid()\n"
               "    if os.fork() == 0:\n        time.sleep(1)\n        for _ in range(1500):\n            time.sleep(0.01)\n"
               "            os.kill(first, signal.SIGSTOP)\n        os._exit(0)\n    return 1\n\n\ndef ok():\n    return 2\n")
    session = WorkerSession(memory_mb=4096)
    guard = time_rules.CallGuard()
    guard.set_budget("stopper", 100.0)
    try:
        session.switch(session.stage({"stopper": stopper.encode()}))
        # The reply is relayed before the module's own process stops the first one (a second later, for 15 s).
        assert guard.call(session, "stopper", "stopper", "stop_parent", (), {}, 5.0, "stopper.stop_parent()") == 1
        deadline = time.monotonic() + 10
        while session._worker.first_process_stopped() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        session.fresh("stopper")
        resets = [e for e in session.exchanges if e.op == "reset"]
        assert session.restarts == 1 and resets and resets[-1].stopped, session.exchanges
        assert guard.call(session, "stopper", "stopper", "ok", (), {}, 5.0, "stopper.ok()") == 2
        assert guard.spent["stopper"] >= 5.0  # the failed reset, at the call's full limit
    finally:
        session.close()


def test_staff_terminal_shows_escapes_not_control_sequences(batches, tmp_path) -> None:
    """`grade` prints a student's exception message with its control characters escaped."""
    lab = batches[MODES[0].name].lab
    sub = lab.folder(lab.root / "escapes")
    for module, source in lab.sources.items():
        (sub / f"{module}.py").write_bytes(source)
    hostile = "\n\ndef argmax_attention(Q, K, V):\n    raise ValueError('x\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\u202e')\n"
    (sub / f"{th.HOST}.py").write_bytes(lab.sources[th.HOST] + hostile.encode())
    if lab.uid is not None:
        th.modes.chown_tree(sub, lab.uid)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "PYTEST_"))} | lab.mode.env
    proc = subprocess.run([lab.python, "-m", "autograder", "grade", str(sub), "--out", str(tmp_path / "r.json")], cwd=lab.project,
                          env=dict(env, **lab.python_env), capture_output=True, timeout=300)
    out = proc.stdout.decode(errors="replace")
    assert "ValueError: x\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\\u202e" in out, out[-3000:]
    assert not any(c in out for c in "\x1b\x07\u202e")


def test_the_graded_folder_is_private_before_student_code_runs(monkeypatch, tmp_path) -> None:
    """Otter copies the zip's files (the harness, tests) into the folder it grades; the zip's entry point makes
    that folder private with the grader's own (the zip, the results), so root without Landlock or bubblewrap does not expose it."""
    from autograder.gradescope import entry
    from autograder.grading import grader, time_rules

    seen = {}

    class Recorder:
        def __init__(self, memory_mb, self_check=False, private=()):
            seen["private"] = private
            raise RuntimeError("stop here")

    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    shutil.copy(paths.REFERENCE / "qkv_arithmetic.py", root / "submission")
    monkeypatch.delenv(time_rules.DEADLINE_ENV, raising=False)  # the entry point fixes one; put back as it was
    monkeypatch.setattr(grader, "WorkerSession", Recorder)
    assert entry.main(root) == 0  # results.json says the grader failed, whatever happens
    assert {root / "submission", root / "source", root / "results"} <= set(seen["private"])
    assert "could not grade" in (root / "results" / "results.json").read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="a uid of its own needs a root grader")
def test_root_without_landlock_cannot_read_a_world_readable_copy_in_a_private_folder(monkeypatch, tmp_path) -> None:
    """The folder made private is what stops a stub reading otter's copy in root mode without Landlock."""
    from autograder.sandbox.session import WorkerSession

    graded = Path(tempfile.mkdtemp(prefix="hostile2-graded-", dir="/tmp"))
    try:
        copy = graded / "_autograder_harness" / "reference"
        copy.mkdir(parents=True)
        (copy / "qkv_arithmetic.py").write_text("SECRET = 1\n")
        for path in [graded, *graded.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        monkeypatch.setattr(policy, "detect", lambda: policy.Protections(bwrap=None, is_root=True, landlock=0, seccomp=False))
        reader = f"def read():\n    try:\n        return open({str(copy / 'qkv_arithmetic.py')!r}).read()\n    except OSError as e:\n        return e.errno\n"
        session = WorkerSession(memory_mb=4096, private=(graded,))
        try:
            session.switch(session.stage({"reader": reader.encode()}))
            assert session.call("reader", "read", (), {}, 30, "reader.read()") == 13  # EACCES
        finally:
            session.close()
    finally:
        cleanup.remove_tree(str(graded))


def test_emulated_container_writes_results_for_the_forged_header(tmp_path) -> None:
    """The forged header where it hurt most: in Gradescope's container a forged 500 MB header left no results.json."""
    from autograder.gradescope import emulate
    from autograder.reports.score_table import problem_totals
    from tests.gradescope import projects
    from tests.gradescope.machine import require_emulation

    require_emulation()
    witness = "shift_matrix"
    zip_path = projects.build_zip(tmp_path / "zip", problems=[th.HOST, witness], call_seconds=3)
    sub = tmp_path / "sub"
    sub.mkdir()
    reference = th.REPO / "reference"
    for module in (th.HOST, witness):
        (sub / f"{module}.py").write_bytes((reference / f"{module}.py").read_bytes())
    text = (ISOLATION / "wire.py").read_text(encoding="utf-8").replace("__MARKER__", "emulated")
    (sub / f"{th.HOST}.py").write_bytes((reference / f"{th.HOST}.py").read_bytes() + b"\n\n" + text.encode())
    run = emulate.emulate(zip_path, sub, namespaces=False)
    assert not run.timed_out and run.results is not None, run.stdout[-3000:]
    scores = problem_totals(run.results, [th.HOST, witness])
    assert 0 < scores[th.HOST][0] < scores[th.HOST][1], scores
    assert scores[witness][0] == scores[witness][1] > 0, scores
    assert "could not grade" not in str(run.results), str(run.results)[:3000]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


# ---- The boundary: what a submission sends, and what a test leaves ----


@pytest.mark.parametrize("mode", _modes())
def test_nothing_of_the_scratch_folder_itself_or_the_box_crosses_tests_or_submissions(mode, batches) -> None:
    """The scratch folder's own times and user.* attribute, the box's submissions folder made 000 (as the grader's own
    user) and then garbage on the reply pipe, a printed line of 1,800 nested brackets shaped like the worker's place
    marker: no later test finds a mark, the later submissions are staged and score as alone (checked above), and their
    printed output still reaches the grader (its reader thread lives)."""
    batch = batches[mode.name]
    printed = batch.printed("a7-cross")
    lines = re.findall(r"cross: found (\[.*?\]); left (\[.*?\])", printed)
    assert lines and all(found == "[]" for found, _left in lines), printed[:3000]
    left = " ".join(left for _found, left in lines)
    if not mode.protections.bwrap:  # the scratch folder is the sandbox user's own: it may set its times
        assert "'times'" in left, left[:2000]
    if not mode.protections.is_root and not mode.protections.bwrap:  # the grader's own user owns the box
        assert "'chmod box'" in left, left[:2000]
    assert "sent back something unreadable" in batch.failures("a7-cross"), batch.failures("a7-cross")[:2000]
    assert "spy found: []" in batch.printed("v1-spy") and "grader error" not in batch.failures("v1-spy"), batch.printed("v1-spy")[:2000]
