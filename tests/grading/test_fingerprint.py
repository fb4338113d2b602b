"""A score record's fingerprint: one digest per problem (manifest, tests, recorded values) and one for the harness."""

import shutil

from autograder.grading import fingerprint
from autograder.model import manifest, paths


def _load(folder):
    """A problem folder as the assignment reads it: its problem.yaml over the assignment's ``problem_defaults``."""
    defaults = manifest.safe_load(paths.ASSIGNMENT_MANIFEST.read_text())["problem_defaults"]
    return manifest.load_problem(folder, defaults)


def test_a_problem_digest_follows_its_points_and_tests_and_nothing_else(tmp_path):
    shutil.copytree(paths.ASSIGNMENTS / "complexity", tmp_path / "complexity")
    before = fingerprint.problem(_load(tmp_path / "complexity"))
    assert before == fingerprint.problem(_load(paths.ASSIGNMENTS / "complexity"))  # content, not place
    (tmp_path / "complexity" / "README.md").write_text("a statement edit grades nothing differently")
    assert fingerprint.problem(_load(tmp_path / "complexity")) == before
    hidden = tmp_path / "complexity" / "tests" / "hidden.py"
    hidden.write_text(hidden.read_text() + "\n# a changed test file\n")
    assert fingerprint.problem(_load(tmp_path / "complexity")) != before


def test_the_harness_digest_follows_the_grading_code(monkeypatch, tmp_path):
    real = fingerprint.harness()
    assert real == fingerprint.harness() and len(real) == 24
    package = tmp_path / "autograder"
    shutil.copytree(paths.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint.paths, "PACKAGE_DIR", package)
    assert fingerprint.harness() == real
    (package / "reports" / "summary.py").write_text("# a report renders scores; it does not make them\n")
    assert fingerprint.harness() == real
    (package / "grading" / "runner.py").write_text((package / "grading" / "runner.py").read_text() + "\n# changed\n")
    assert fingerprint.harness() != real


def test_stale_names_what_changed():
    current = {"p": "1", "q": "2", fingerprint.HARNESS: "h"}
    assert fingerprint.stale(dict(current), current) == []
    assert fingerprint.stale({"p": "1", "q": "old", fingerprint.HARNESS: "h"}, current) == ["q"]
    assert fingerprint.stale({"p": "1", fingerprint.HARNESS: "h"}, current) == ["q"]  # a problem added since
    assert fingerprint.stale({"p": "1", "q": "2", fingerprint.HARNESS: "old"}, current) == [fingerprint.HARNESS]
    assert fingerprint.stale({}, current) == [fingerprint.HARNESS]  # a record from before fingerprints were kept


def test_recorded_values_count_by_content_not_by_the_bytes_of_their_files(tmp_path, monkeypatch):
    """The shared cache records a problem again when other checkouts push it out: the same values, a new .npz."""
    import time
    import zipfile

    problem = _load(paths.ASSIGNMENTS / "qkv_arithmetic")
    fingerprint.records.preload(["qkv_arithmetic"])
    index, arrays = fingerprint.store_files("qkv_arithmetic")
    copy = tmp_path / "store"
    copy.mkdir()
    shutil.copy(index, copy / index.name)
    time.sleep(2)  # zip times have a resolution of 2 s
    with zipfile.ZipFile(arrays) as old, zipfile.ZipFile(copy / arrays.name, "w") as new:
        for info in old.infolist():
            new.writestr(info.filename, old.read(info))  # written now: other times, other bytes
    assert (copy / arrays.name).read_bytes() != arrays.read_bytes()
    before = fingerprint.problem(problem)
    monkeypatch.setattr(fingerprint, "store_files", lambda module: [copy / index.name, copy / arrays.name])
    assert fingerprint.problem(problem) == before
    with zipfile.ZipFile(arrays) as old, zipfile.ZipFile(copy / arrays.name, "w") as new:
        for n, info in enumerate(old.infolist()):
            new.writestr(info.filename, old.read(info) + (b"\0" if n == 0 else b""))  # one value differs
    assert fingerprint.problem(problem) != before


def test_recorded_calls_in_another_order_or_other_mistake_outputs_are_the_same_values(tmp_path, monkeypatch):
    """Recording the same sources again can append the calls in another order (their arrays numbered otherwise) and a
    mistake drawing from the global RNG records other outputs: neither is a change of the expected values."""
    from autograder.expected.store import Store

    problem = _load(paths.ASSIGNMENTS / "qkv_arithmetic")
    fingerprint.records.preload(["qkv_arithmetic"])
    before = fingerprint.problem(problem)
    store = Store.load(fingerprint.store_files("qkv_arithmetic")[0].parent, "qkv_arithmetic")
    store.entries = dict(reversed(list(store.entries.items())))
    index, arrays = store.save(tmp_path / "reordered")
    assert arrays.read_bytes() != fingerprint.store_files("qkv_arithmetic")[1].read_bytes()
    monkeypatch.setattr(fingerprint, "store_files", lambda module: [index, arrays])
    assert fingerprint.problem(problem) == before
    with_mistake = next(e for e in store.entries.values() if e.mistakes and e.output is not None)
    name = next(iter(with_mistake.mistakes))
    with_mistake.mistakes[name] = ({"t": "float", "v": 12345.0}, [])
    index, arrays = store.save(tmp_path / "other_mistake_output")
    assert fingerprint.problem(problem) == before
    with_mistake.output = ({"t": "float", "v": 12345.0}, [])
    index, arrays = store.save(tmp_path / "other_reference_output")
    assert fingerprint.problem(problem) != before


def test_a_submissions_digests_follow_each_modules_file(tmp_path):
    modules = ["qkv_arithmetic", "complexity"]
    (tmp_path / "qkv_arithmetic.py").write_text("x = 1\n")
    first = fingerprint.submission(tmp_path, modules)
    assert set(first) == {"files:qkv_arithmetic", "files:complexity"} and first == fingerprint.submission(tmp_path, modules)
    (tmp_path / "Complexity.py").write_text("y = 2\n")  # a near-miss name: the module is still missing, with another reason
    (tmp_path / "notes.txt").write_text("never read")
    renamed = fingerprint.submission(tmp_path, modules)
    assert renamed["files:qkv_arithmetic"] == first["files:qkv_arithmetic"] and renamed["files:complexity"] != first["files:complexity"]
    (tmp_path / "qkv_arithmetic.py").write_text("x = 2\n")
    assert fingerprint.submission(tmp_path, modules)["files:qkv_arithmetic"] != first["files:qkv_arithmetic"]
    assert fingerprint.problems_of(["complexity", "files:qkv_arithmetic", "files:complexity"]) == ["complexity", "qkv_arithmetic"]


def test_an_unreadable_submission_has_the_same_digests_wherever_it_is(tmp_path):
    """Shards graded on other machines hold the export elsewhere: its place is no part of what the student sent."""
    digests = []
    for where in ("a", "b/c"):
        (tmp_path / where).mkdir(parents=True)
        (tmp_path / where / "broken.zip").write_bytes(b"PK\x03\x04 cut short")
        digests.append(fingerprint.submission(tmp_path / where / "broken.zip" / "submission_1", ["qkv_arithmetic"]))
    assert digests[0] == digests[1]
