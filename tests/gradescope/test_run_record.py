"""The run record beside results.json: the staff notes of a run and the calls the time rules stopped or refused."""

from autograder.gradescope.run_record import RUN_RECORD, read_run_record, record_run


def test_the_run_record_counts_refused_calls_by_kind_and_skips_what_it_cannot_read(tmp_path):
    for entry in ({"staff_notes": ["sandbox: x"]}, {"refused": "timeout"}, {"refused": "budget"}, {"refused": "timeout"}):
        record_run(entry, tmp_path)
    with open(tmp_path / RUN_RECORD, "a") as f:
        f.write("not json\n[1, 2]\n")
    notes, refused = read_run_record(tmp_path)
    assert notes == ["sandbox: x"] and refused == {"timeout": 2, "budget": 1}
    record_run({"refused": "timeout"}, tmp_path / "absent")  # not on Gradescope: nothing is written
    assert read_run_record(tmp_path / "absent") == ([], {})
