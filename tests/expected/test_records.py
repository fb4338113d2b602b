"""Recorded expected values: found exactly, or closely; the recorder's outputs and hints; the cache's fingerprint."""

import numpy as np
import pytest

from autograder.expected import records
from autograder.expected.store import KEEP_INPUT_ELEMENTS, Entry, Store, encode_inputs, exact_key
from autograder.model import paths
from autograder.sandbox import codec
from autograder.sandbox.worker import wire
from autograder.testkit.inputs import tensor


def entry(func, args, kwargs, output, public=True, mistakes=None):
    return Entry(func, encode_inputs(args, kwargs), public, wire.encode(output, codec.to_array),
                 {k: wire.encode(v, codec.to_array) for k, v in (mistakes or {}).items()})


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A store of two calls of ``demo.f``, saved and read back from its files as the zip carries them."""
    x = tensor(np.arange(6, dtype=np.float64).reshape(2, 3) / 7)
    made = Store("demo", hints={"halved": "you halved it"}, signatures={"f": [["x", "POSITIONAL_OR_KEYWORD", False], ["scale", "POSITIONAL_OR_KEYWORD", True]]})
    for args, kwargs, out, mistakes in [((x,), {"scale": 0.5}, np.asarray(x) * 0.5, {"halved": np.asarray(x) * 0.25}), ((x, 3), {}, float(x.sum() * 3), {})]:
        e = entry("f", args, kwargs, out, mistakes=mistakes)
        made.entries[exact_key("f", *e.inputs)] = e
    folder = tmp_path / "assignments" / records.SHIPPED_NAME
    made.save(folder)
    monkeypatch.setattr(paths, "ASSIGNMENTS", tmp_path / "assignments")
    records.store.cache_clear()
    yield x
    records.store.cache_clear()


def test_the_same_call_finds_its_output(store):
    got = records.reference_output("demo", "f", (store.copy(),), {"scale": 0.5})
    assert isinstance(got, np.ndarray) and np.array_equal(got, np.asarray(store) * 0.5)
    assert records.reference_output("demo", "f", (store, 3), {}) == pytest.approx(float(store.sum() * 3))
    # by a dictionary lookup, not a scan of every recorded call
    assert exact_key("f", *encode_inputs((store,), {"scale": 0.5})) in records.store("demo").entries


def test_inputs_off_in_the_last_bits_still_find_it(store):
    nudged = tensor(np.nextafter(np.asarray(store), 10.0))
    assert np.array_equal(records.reference_output("demo", "f", (nudged,), {"scale": 0.5}), np.asarray(store) * 0.5)


def test_other_inputs_are_not_found_and_that_is_the_graders_fault(store):
    from autograder.sandbox.session import SandboxFault

    with pytest.raises(SandboxFault, match="no expected value is recorded for demo.f"):
        records.reference_output("demo", "f", (store + 1,), {"scale": 0.5})
    with pytest.raises(records.MissingExpected):
        records.reference_output("demo", "f", (store,), {"scale": 0.25})
    # a plain array is not a tensor: the student would receive something else
    with pytest.raises(records.MissingExpected):
        records.reference_output("demo", "f", (np.asarray(store),), {"scale": 0.5})


def test_mistake_outputs_hints_and_signature(store):
    [(name, out)] = records.mistake_outputs("demo", "f", (store,), {"scale": 0.5})
    assert name == "halved" and np.array_equal(out, np.asarray(store) * 0.25)
    assert records.hint("demo", "halved") == "you halved it"
    assert str(records.signature("demo", "f")) == "(x, scale=None)"


def test_large_inputs_are_found_by_their_digest_only(tmp_path):
    big = tensor(np.linspace(0, 1, KEEP_INPUT_ELEMENTS + 1))
    made = Store("big")
    e = entry("g", (big,), {}, 1.0)
    made.entries[exact_key("g", *e.inputs)] = e
    made.save(tmp_path)
    loaded = Store.load(tmp_path, "big")
    assert loaded.find("g", (big,), {}) is not None
    assert loaded.find("g", (tensor(np.nextafter(np.asarray(big), 2.0)),), {}) is None
    assert (tmp_path / "big.npz").stat().st_size < big.nbytes // 2


def test_public_only_leaves_hidden_calls_out(tmp_path):
    made = Store("demo")
    for i, public in enumerate((True, False)):
        e = entry("f", (i,), {}, float(i), public=public)
        made.entries[exact_key("f", *e.inputs)] = e
    made.save(tmp_path, public_only=True)
    assert [e.public for e in Store.load(tmp_path, "demo").entries.values()] == [True]


def test_fingerprint_follows_reference_tests_and_mistakes(tmp_path, monkeypatch):
    import shutil

    module = "qkv_arithmetic"
    root = tmp_path / "root"
    shutil.copytree(paths.ROOT / "assignments", root / "assignments")
    shutil.copytree(paths.ROOT / "reference", root / "reference")
    monkeypatch.setattr(paths, "ROOT", root)
    monkeypatch.setattr(paths, "ASSIGNMENTS", root / "assignments")
    monkeypatch.setattr(paths, "REFERENCE", root / "reference")
    monkeypatch.setattr(paths, "ASSIGNMENT_MANIFEST", root / "assignments" / "assignment.yaml")
    seen = {records.fingerprint(module)}
    for path in (root / "reference" / f"{module}.py", root / "assignments" / module / "tests" / "hidden.py",
                 next((root / "assignments" / module / "mistakes").glob("*.py"))):
        path.write_text(path.read_text() + "\n# changed\n")
        seen.add(records.fingerprint(module))
    (root / "assignments" / module / "README.md").write_text("statement only")
    seen.add(records.fingerprint(module))
    yaml_path = root / "assignments" / module / "problem.yaml"
    yaml_path.write_text(yaml_path.read_text() + "limits: {call_seconds: 1}\n")
    seen.add(records.fingerprint(module))
    assert len(seen) == 4  # neither the statement nor a time limit changes what is recorded
    yaml_path.write_text(yaml_path.read_text() + "tests: {hidden: []}\n")
    assert records.fingerprint(module) not in seen  # the tests that run do
    seen.add(records.fingerprint(module))
    (root / "assignments" / module / "callables.py").write_text("def relu(x):\n    return x\n")
    assert records.fingerprint(module) not in seen  # and so do the functions its tests pass by name


def test_preloading_from_the_cache_reads_each_problem_s_files_once(monkeypatch):
    from autograder.model import manifest

    modules = manifest.load().modules
    records.refresh_cache(modules)  # recorded now if stale: this test counts what a grade's preload reads
    counted = []
    real = records.fingerprint
    monkeypatch.setattr(records, "fingerprint", lambda module: counted.append(module) or real(module))
    records.store.cache_clear()
    try:
        records.preload(modules)
        assert sorted(counted) == sorted(modules)
        assert all(records.store(m).module == m for m in modules)  # what was loaded is each problem's own store
        records.store.cache_clear()
        counted.clear()
        records.store(modules[0])  # a store loaded later still checks its files
        assert counted == [modules[0]]
    finally:
        records.store.cache_clear()


def test_preload_says_which_records_cannot_be_opened_and_no_later_lookup_tries_again(store, monkeypatch):
    monkeypatch.setattr(records, "_unusable", {})  # what this test's preloads found goes with it
    shipped = paths.ASSIGNMENTS / records.SHIPPED_NAME
    (shipped / "demo.json").write_text('{"module": "de')
    records.store.cache_clear()
    assert set(records.preload(["demo"])) == {"demo"} and "demo.json are damaged" in records.preload(["demo"])["demo"]
    load = records.Store.load
    monkeypatch.setattr(records.Store, "load", lambda *a: pytest.fail("opened again"))
    with pytest.raises(records.MissingExpected, match="demo.json are damaged"):
        records.reference_output("demo", "f", (store, 3), {})
    monkeypatch.setattr(records.Store, "load", load)
    (shipped / "demo.json").unlink()  # missing: said the same way
    assert list(records.preload(["demo"])) == ["demo"] and "demo.json is missing" in records.preload(["demo"])["demo"]


def test_a_damaged_cached_store_is_recorded_again(tmp_path, monkeypatch):
    made = Store("demo", hints={"h": "a hint"})
    folder = tmp_path / "demo-print"
    recorded = []

    def refresh(modules):
        recorded.append(modules)
        made.save(folder)
        return {"demo": "print"}

    monkeypatch.setattr(records, "cached_folder", lambda module, fingerprint_: folder)
    monkeypatch.setattr(records, "refresh_cache", refresh)
    made.save(folder)
    (folder / "demo.json").write_text("{")  # a copy cut short (a full disk, a killed run)
    assert records.cached_store("demo", "print").hints == {"h": "a hint"} and recorded == [["demo"]]


def test_a_failed_recording_is_tried_once_and_each_later_lookup_fails_at_once(monkeypatch):
    import subprocess

    runs = []
    monkeypatch.setattr(records, "_unusable", {})
    monkeypatch.setattr(records, "_cache_fresh", lambda module, fingerprint_: False)
    monkeypatch.setattr(records.subprocess, "run", lambda *a, **k: runs.append(a) or subprocess.CompletedProcess(
        a, 1, "", "SyntaxError: invalid syntax\n"))
    records.store.cache_clear()
    try:
        with pytest.raises(records.RecordingFailed, match="recording the expected values of complexity failed"):
            records.preload(["complexity"])  # a grade or a validation stops here, with the fix
        for _ in range(3):  # a test that looks a record up (validate's variants) cannot be judged, and records nothing
            with pytest.raises(records.MissingExpected, match="SyntaxError"):
                records.store("complexity")
        assert len(runs) == 2  # the preload's, then the first lookup's
    finally:
        records.store.cache_clear()
