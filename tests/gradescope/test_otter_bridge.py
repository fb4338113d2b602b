"""What runs on otter's side: the Gradescope quarantine of extra files, and the proxies of the driver notebook."""

import os

from autograder.gradescope.otter_bridge import RUN_RECORD, expose, prepare_run, quarantine_extras, read_run_record, record_run
from autograder.grading import time_rules
from autograder.model import manifest
from autograder.staff import solutions
from tests.helpers import reference_submission

EXTRAS = {"otter.py": "raise SystemExit('shadowed otter')", "sitecustomize.py": "", "numpy.py": "", ".OTTER_LOG": "pickle", "notes.txt": "hi"}


def test_quarantine_keeps_only_the_six_modules(tmp_path):
    folder = reference_submission(tmp_path / "submission")
    for name, text in EXTRAS.items():
        (folder / name).write_text(text)
    (folder / "pkg").mkdir()
    (folder / "pkg" / "__init__.py").write_text("")
    moved = quarantine_extras(str(folder), str(tmp_path / "quarantine"))
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{m}.py" for m in manifest.load().modules)
    assert set(moved) == set(EXTRAS) | {"pkg"}
    assert (tmp_path / "quarantine" / "otter.py").read_text() == EXTRAS["otter.py"]


def test_quarantine_inside_a_single_folder(tmp_path):
    inner = reference_submission(tmp_path / "submission" / "hw")
    (inner / "otter.py").write_text("")
    (tmp_path / "submission" / "json.py").write_text("")
    quarantine_extras(str(tmp_path / "submission"), str(tmp_path / "quarantine"))
    assert sorted(p.name for p in inner.iterdir()) == sorted(f"{m}.py" for m in manifest.load().modules)
    assert not (tmp_path / "submission" / "json.py").exists()
    assert (tmp_path / "quarantine" / "hw" / "otter.py").exists()


def test_prepare_run_quarantines_fixes_the_deadline_and_tells_staff_the_limits(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(time_rules.DEADLINE_ENV, raising=False)
    folder = reference_submission(tmp_path / "submission")
    (folder / "otter.py").write_text("")
    (tmp_path / "results").mkdir()
    prepare_run(str(folder), str(tmp_path / "quarantine"), str(tmp_path / "results"))
    assert (tmp_path / "quarantine" / "otter.py").exists()
    assert time_rules.inherited_deadline() is not None
    log = capsys.readouterr().out
    assert "sandbox:" in log and "worker memory limit" in log and "time rules: per call: qkv_arithmetic" in log
    notes, refused = read_run_record(tmp_path / "results")  # the same notes, as data for the emulation
    assert notes == log.strip().splitlines() and refused == {}


def test_the_run_record_counts_refused_calls_by_kind_and_skips_what_it_cannot_read(tmp_path):
    for entry in ({"staff_notes": ["sandbox: x"]}, {"refused": "timeout"}, {"refused": "budget"}, {"refused": "timeout"}):
        record_run(entry, tmp_path)
    with open(tmp_path / RUN_RECORD, "a") as f:
        f.write("not json\n[1, 2]\n")
    notes, refused = read_run_record(tmp_path)
    assert notes == ["sandbox: x"] and refused == {"timeout": 2, "budget": 1}
    record_run({"refused": "timeout"}, tmp_path / "absent")  # not on Gradescope: nothing is written
    assert read_run_record(tmp_path / "absent") == ([], {})


def test_exposed_proxies_run_the_student_in_the_sandbox(tmp_path):
    folder = reference_submission(tmp_path / "submission")
    proxies = expose(str(folder))
    assert set(proxies) == set(manifest.load().modules)
    pid = proxies["qkv_arithmetic"]._session._ensure_ready().proc.pid
    assert pid != os.getpid()
    size = proxies["receptive_field"].receptive_field_size(2, 3, seq_len=100)
    assert size == solutions.reference("receptive_field").receptive_field_size(2, 3, seq_len=100)


def test_quarantine_moves_modules_found_deeper_to_the_top(tmp_path):
    inner = reference_submission(tmp_path / "submission" / "attention-handout" / "student_template")
    (inner.parent / "README.md").write_text("")
    quarantine_extras(str(tmp_path / "submission"), str(tmp_path / "quarantine"))
    assert sorted(p.name for p in (tmp_path / "submission").iterdir()) == sorted(f"{m}.py" for m in manifest.load().modules)
