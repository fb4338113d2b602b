"""Reading Gradescope's "Download Submissions" export: zipped or not, at the top or in one folder; bad metadata named."""

import io
import struct
import zipfile

import pytest

from autograder.gradescope import export as gradescope_export
from autograder.gradescope.export import ExportError, parse_metadata
from autograder.model.roster import Entry, Student

METADATA = """\
submission_1:
  :submitters:
  - :name: Ada Lovelace
    :sid: '0001'
    :email: ada@uni.edu
  :created_at: 2024-03-01 10:00:00.000000000 -08:00
  :score: 12.5
submission_2:
  :submitters:
  - :name: Grace Hopper
    :sid: 2
    :email: grace@uni.edu
  - :name: Alan Turing
    :sid:
    :email: alan@uni.edu
submission_3:
  :submitters: not a list
"""
ADA = Student("Ada Lovelace", "0001", "ada@uni.edu")
GROUP = (Student("Grace Hopper", "2", "grace@uni.edu"), Student("Alan Turing", "", "alan@uni.edu"))


def layout(prefix=""):
    return {f"{prefix}submission_metadata.yml": METADATA, f"{prefix}submission_1/qkv_arithmetic.py": "# 1",
            f"{prefix}submission_2/hw.zip": "not read here", f"{prefix}submission_3/qkv_arithmetic.py": "# 3",
            f"{prefix}submission_4/qkv_arithmetic.py": "# 4"}


def write_folder(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def write_zip(path, files):
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return path


def check(export, base):
    assert sorted(export.submissions) == ["submission_1", "submission_2", "submission_3", "submission_4"]
    assert export.submissions["submission_1"] == base / "submission_1"
    assert export.roster["submission_1"] == Entry((ADA,), created_at="2024-03-01T10:00:00-08:00") and export.roster["submission_2"] == Entry(GROUP)
    assert export.roster["submission_3"].students == () and export.roster["submission_4"].students == ()
    assert export.roster["submission_3"].note == "submission_metadata.yml: entry submission_3: ':submitters:' should be a list"
    assert export.errors == ["submission_metadata.yml: entry submission_3: ':submitters:' should be a list",
                             "submission_metadata.yml has no entry submission_4"]
    assert export.messages == [] and export.roster["submission_1"].created_at == "2024-03-01T10:00:00-08:00"


@pytest.mark.parametrize("prefix", ["", "assignment_42_export/"])
def test_an_unzipped_export_at_the_top_or_in_one_folder(tmp_path, prefix):
    write_folder(tmp_path / "export", layout(prefix))
    check(gradescope_export.read(tmp_path / "export"), tmp_path / "export" / prefix.rstrip("/"))


def test_the_output_folder_beside_an_unzipped_export_is_not_a_submission(tmp_path):
    write_folder(tmp_path / "download", layout("assignment_42_export/"))
    (tmp_path / "download" / "grades" / "records").mkdir(parents=True)
    export = gradescope_export.read(tmp_path / "download", exclude=(tmp_path / "download" / "grades",))
    check(export, tmp_path / "download" / "assignment_42_export")


@pytest.mark.parametrize("prefix", ["", "assignment_42_export/"])
def test_a_zipped_export_is_read_in_place(tmp_path, prefix):
    path = write_zip(tmp_path / "export.zip", layout(prefix) | {"__MACOSX/._submission_1": "", ".DS_Store": ""})
    check(gradescope_export.read(path), path / prefix.rstrip("/"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.zip"]


def test_an_entry_without_a_folder_is_kept_as_missing(tmp_path):
    files = layout()
    del files["submission_1/qkv_arithmetic.py"]
    export = gradescope_export.read(write_folder(tmp_path, files))
    assert "submission_1" not in export.submissions
    assert export.roster["submission_1"] == Entry((ADA,), "submission_metadata.yml lists submission_1 but the export has no folder submission_1/", True,
                                                  "2024-03-01T10:00:00-08:00")
    assert any(m.startswith("submission_metadata.yml lists submission_1 but") and "left out of the upload" in m for m in export.messages)


def test_a_folder_without_metadata_is_not_an_export_and_a_zip_without_one_is_refused(tmp_path):
    (tmp_path / "plain" / "alice").mkdir(parents=True)
    assert gradescope_export.read(tmp_path / "plain") is None
    with pytest.raises(ExportError, match=r"holds no submission_metadata\.yml"):
        gradescope_export.read(write_zip(tmp_path / "subs.zip", {"alice/qkv_arithmetic.py": ""}))
    (tmp_path / "broken.zip").write_bytes(bytes(46) + b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 1, 1, 46, 0, 0))
    with pytest.raises(ExportError, match=r"broken\.zip is not a readable zip .*download the export again"):
        gradescope_export.read(tmp_path / "broken.zip")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ExportError, match="neither a folder of submissions nor a zip"):
        gradescope_export.read(tmp_path / "notes.txt")


@pytest.mark.parametrize(("entry", "problem"), [
    ("  :submitters: []\n", "':submitters:' should be a list of at least one submitter"),
    ("  :score: 3\n", "':submitters:' is missing"),
    ("  :submitters:\n  - just a name\n", "submitter 1 should be a mapping with ':name:', ':sid:' and ':email:'"),
    ("  :submitters:\n  - :name: [A, B]\n", "submitter 1: ':name:' should be text, found a list"),
    ("  :submitters:\n  - :name: A\n    :email: a@x\n  - :name: {x: 1}\n", "submitter 2: ':name:' should be text, found a dict"),
])
def test_malformed_entries_are_named_by_file_and_entry(entry, problem):
    parsed = parse_metadata(f"submission_7:\n{entry}submission_8:\n  :submitters:\n  - :name: B\n    :sid: '8'\n")
    assert parsed.notes == {"submission_7": f"submission_metadata.yml: entry submission_7: {problem}"}
    assert parsed.students == {"submission_8": (Student("B", "8", ""),)}


def test_a_metadata_file_that_is_not_a_mapping_or_not_yaml_is_an_error_said_once(tmp_path):
    listed = parse_metadata("- submission_1\n- submission_2\n")
    assert listed.students == {} and listed.problems == [
        "submission_metadata.yml: should map each submission folder (submission_<id>) to its entry, found a list"]
    broken = parse_metadata("submission_1: [unclosed\n")
    assert broken.problems[0].startswith("submission_metadata.yml could not be read (not valid YAML:")
    files = layout()
    files["submission_metadata.yml"] = "submission_1: [unclosed\n"
    export = gradescope_export.read(write_folder(tmp_path, files))
    assert all(e.students == () and e.note == broken.problems[0] for e in export.roster.values())
    assert export.errors == broken.problems and export.messages == []  # said once, not once per folder


def test_metadata_is_parsed_safely():
    parsed = parse_metadata("submission_1: !!python/object/apply:os.system ['echo owned']\n")
    assert parsed.students == {} and "could not be read" in parsed.problems[0]


def test_a_zipped_export_with_metadata_in_two_folders_is_ambiguous(tmp_path):
    path = write_zip(tmp_path / "e.zip", {"a/submission_metadata.yml": "", "b/submission_metadata.yml": ""})
    with pytest.raises(ExportError, match="holds no submission_metadata.yml"):
        gradescope_export.read(path)


def test_bytes_are_accepted():
    buffer = io.BytesIO(METADATA.encode())
    assert parse_metadata(buffer.getvalue()).students["submission_1"] == (ADA,)


def test_created_at_is_read_as_gradescope_writes_it_and_a_bad_one_is_named():
    parsed = parse_metadata("s1:\n  :submitters:\n  - :name: A\n    :sid: '1'\n  :created_at: 2024-03-01 10:00:00.123456789 -08:00\n"
                            "s2:\n  :submitters:\n  - :name: B\n  :created_at: '2024-03-02 10:00:00.5 +01:00'\n"
                            "s3:\n  :submitters:\n  - :name: C\n  :created_at: yesterday\n")
    assert parsed.created == {"s1": "2024-03-01T10:00:00.123456-08:00", "s2": "2024-03-02T10:00:00.500000+01:00"}
    assert parsed.notes == {"s3": "submission_metadata.yml: entry s3: ':created_at:' should be a date and time, found 'yesterday'"}


@pytest.mark.parametrize("zipped", [False, True])
def test_a_folder_the_grader_will_not_grade_is_listed_with_the_reason(tmp_path, zipped):
    files = layout() | {"..\\..\\evil/qkv_arithmetic.py": "# x", ".hidden/qkv_arithmetic.py": "# x",
                        "bad\x1b[31mname/qkv_arithmetic.py": "# x"}
    files["submission_metadata.yml"] += "..\\..\\evil:\n  :submitters:\n  - :name: Eve\n    :sid: '66'\n"
    del files["submission_3/qkv_arithmetic.py"], files["submission_4/qkv_arithmetic.py"]
    path = write_zip(tmp_path / "e.zip", files) if zipped else write_folder(tmp_path / "e", files)
    export = gradescope_export.read(path)
    assert sorted(export.submissions) == ["submission_1", "submission_2"]
    assert export.refused == {"..\\..\\evil": "its name holds a path separator (/ or \\); rename it",
                              ".hidden": "hidden (its name begins with a dot)",
                              "bad\x1b[31mname": "its name holds control characters (shown escaped); rename it"}
    evil = export.roster["..\\..\\evil"]
    assert evil.missing and evil.students[0].name == "Eve" and evil.note == "not graded: its name holds a path separator (/ or \\); rename it"


def test_a_truncated_export_is_called_damaged(tmp_path):
    whole = write_zip(tmp_path / "whole.zip", layout()).read_bytes()
    (tmp_path / "cut.zip").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ExportError, match=r"cut\.zip is a damaged zip .*download the export again"):
        gradescope_export.read(tmp_path / "cut.zip")


def test_a_damaged_deflated_metadata_member_is_could_not_read_download_again(tmp_path):
    from tests.helpers import damage_deflated, zip_bytes

    data = zip_bytes({"submission_metadata.yml": METADATA, "submission_1/qkv_arithmetic.py": "# one\n"})
    (tmp_path / "export.zip").write_bytes(damage_deflated(data, "submission_metadata.yml"))
    with pytest.raises(ExportError, match=r"export\.zip is not a readable zip \(Error -3 while decompressing data.*\); "
                                          r"download the export again"):
        gradescope_export.read(tmp_path / "export.zip")
