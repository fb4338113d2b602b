"""`submission.locate` on the shapes a Gradescope export adds: a folder inside a zip, a zip inside a folder or a zip."""

import io
import os
import stat
import zipfile

import pytest

from autograder.grading import submission
from autograder.model import scores
from tests.helpers import damage_deflated, zip_bytes

MODULES = ["qkv_arithmetic", "complexity"]
SOURCES = {f"{m}.py": f"# {m}\n".encode() for m in MODULES}



def test_a_zip_inside_a_folder_is_read_through_the_module_cap(tmp_path):
    folder = tmp_path / "submission_1"
    folder.mkdir()
    big = b"#" * (submission.MAX_MODULE_BYTES + 1)
    (folder / "hw.zip").write_bytes(zip_bytes({"hw/qkv_arithmetic.py": SOURCES["qkv_arithmetic.py"], "hw/complexity.py": big, "hw/notes.txt": b"x"}))
    located = submission.locate(folder, MODULES)
    assert located.sources == {"qkv_arithmetic": SOURCES["qkv_arithmetic.py"]}
    assert "complexity.py could not be read: it unpacks to" in located.problems["complexity"]
    assert located.ignored == ["hw.zip/hw/notes.txt"]


def test_a_folder_with_modules_ignores_its_zip(tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "qkv_arithmetic.py").write_bytes(b"# top\n")
    (folder / "old.zip").write_bytes(zip_bytes(SOURCES))
    located = submission.locate(folder, MODULES)
    assert located.sources == {"qkv_arithmetic": b"# top\n"} and "old.zip" in located.ignored


def test_a_symlinked_or_broken_inner_zip_is_refused_and_named(tmp_path):
    outside = tmp_path / "outside.zip"
    outside.write_bytes(zip_bytes(SOURCES))
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "hw.zip").symlink_to(outside)
    located = submission.locate(linked, MODULES)
    assert not located.sources and "hw.zip (could not be read: it is a link or a special file, not a regular file)" in located.ignored
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "hw.zip").write_bytes(b"PK\x03\x04 not really")
    located = submission.locate(broken, MODULES)
    assert not located.sources and any(e.startswith("hw.zip (could not be read") for e in located.ignored)
    assert set(located.problems) == set(MODULES)
    assert located.missing == [] and all(p.startswith("hw.zip could not be read: its bytes in the zip are damaged (")
                                         for p in located.problems.values())


def test_a_module_with_a_bad_crc_is_unreadable_not_missing(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for m in MODULES:
            zf.writestr(f"{m}.py", f"# {m} " + "x" * 50)
    damaged = bytearray(buffer.getvalue())
    at = damaged.index(b"# " + MODULES[0].encode()) + 10  # a byte of the first module's stored data
    damaged[at] ^= 0xFF
    (tmp_path / "sub.zip").write_bytes(bytes(damaged))
    located = submission.locate(tmp_path / "sub.zip", MODULES)
    assert MODULES[0] not in located.sources and MODULES[0] not in located.missing
    assert "could not be read" in located.problems[MODULES[0]] and "CRC" in located.problems[MODULES[0]]


def test_two_inner_zips_are_not_guessed_between(tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "a.zip").write_bytes(zip_bytes(SOURCES))
    (folder / "b.zip").write_bytes(zip_bytes(SOURCES))
    located = submission.locate(folder, MODULES)
    assert not located.sources and sorted(located.ignored) == ["a.zip", "b.zip"]


def test_a_folder_inside_a_zip_is_read_in_place(tmp_path):
    export = tmp_path / "export.zip"
    export.write_bytes(zip_bytes({
        "assignment_export/submission_1/qkv_arithmetic.py": b"# one\n",
        "assignment_export/submission_10/qkv_arithmetic.py": b"# ten\n",
        "assignment_export/submission_2/hw.zip": zip_bytes({"qkv_arithmetic.py": b"# two\n"}),
        "assignment_export/submission_3/../../escape.py": b"evil",
    }))
    one = submission.locate(export / "assignment_export" / "submission_1", MODULES)
    assert one.sources == {"qkv_arithmetic": b"# one\n"} and not one.ignored
    two = submission.locate(export / "assignment_export" / "submission_2", MODULES)
    assert two.sources == {"qkv_arithmetic": b"# two\n"}
    three = submission.locate(export / "assignment_export" / "submission_3", MODULES)
    assert not three.sources and three.ignored == ["../../escape.py (unsafe path, not extracted)"]
    with pytest.raises(submission.SubmissionError, match="does not exist"):
        submission.locate(export / "assignment_export" / "submission_4", MODULES)
    assert list(tmp_path.iterdir()) == [export]  # nothing extracted


def test_an_inner_zip_in_a_zip_has_a_size_cap_and_symlinks_inside_are_refused(tmp_path, monkeypatch):
    inner = zip_bytes(SOURCES)
    export = tmp_path / "export.zip"
    with zipfile.ZipFile(export, "w") as zf:
        zf.writestr("submission_1/hw.zip", inner)
        info = zipfile.ZipInfo("submission_2/hw.zip")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(info, "/etc/passwd")
    monkeypatch.setattr(submission, "MAX_NESTED_ZIP_BYTES", len(inner) - 1)
    capped = submission.locate(export / "submission_1", MODULES)
    assert not capped.sources and capped.ignored == [f"hw.zip (could not be read: it unpacks to {len(inner)} bytes, more than the {len(inner) - 1} allowed)"]
    linked = submission.locate(export / "submission_2", MODULES)
    assert not linked.sources and linked.ignored == ["hw.zip (could not be read: it is a symbolic link inside the zip)"]
    assert sorted(os.listdir(tmp_path)) == ["export.zip"]


def located_in_zip(tmp_path, files):
    """What ``locate`` finds in a zip of ``files`` (name -> content)."""
    zipped = tmp_path / "sub.zip"
    zipped.write_bytes(zip_bytes(files))
    return submission.locate(zipped, MODULES)


@pytest.mark.parametrize("sep", ["/", "\\"])  # "\\": as PowerShell 5.1's Compress-Archive writes paths (unzip reads them so)
def test_modules_are_found_at_any_depth_as_a_zipped_handout_folder_holds_them(tmp_path, sep):
    top = "attention-handout"
    template = f"{top}{sep}student_template"
    located = located_in_zip(tmp_path, {
        f"{template}{sep}qkv_arithmetic.py": b"# q\n",
        f"{template}{sep}complexity.py": b"# c\n",
        f"{top}{sep}README.md": b"read me",
        sep.join([top, ".venv", "lib", "python3.11", "site-packages", "complexity.py"]): b"# a package's own\n",
        f"{top}{sep}__pycache__{sep}complexity.py": b"# bytecode's folder\n",
        f"{top}{sep}qkv_arithmetic (1).py": b"# a copy\n",
        f"..{sep}complexity.py": b"# outside\n",
    })
    assert located.sources == {"qkv_arithmetic": b"# q\n", "complexity": b"# c\n"} and not located.problems
    assert located.paths["complexity"] == f"{template}{sep}complexity.py"
    assert located.ignored == [f"..{sep}complexity.py (unsafe path, not extracted)",
                               f"{top}{sep}qkv_arithmetic (1).py (did you mean qkv_arithmetic.py? only that exact name is read)",
                               f"{top}{sep}README.md"]


def test_a_folder_whose_file_names_hold_backslashes_is_read_as_its_zip_was(tmp_path):
    # What such a zip becomes when extracted where a backslash is no separator (Linux keeps it in the name).
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "attention-handout\\qkv_arithmetic.py").write_bytes(b"# q\n")
    (folder / "attention-handout\\complexity.py").write_bytes(b"# c\n")
    located = submission.locate(folder, MODULES)
    assert located.sources == {"qkv_arithmetic": b"# q\n", "complexity": b"# c\n"} and not located.problems


def test_a_name_found_twice_is_refused_with_both_paths(tmp_path):
    folder = tmp_path / "sub"
    (folder / "old").mkdir(parents=True)
    (folder / "qkv_arithmetic.py").write_bytes(b"# new\n")
    (folder / "old" / "qkv_arithmetic.py").write_bytes(b"# old\n")
    (folder / "complexity.py").write_bytes(b"# c\n")
    located = submission.locate(folder, MODULES)
    assert located.sources == {"complexity": b"# c\n"} and located.missing == []
    assert "qkv_arithmetic.py was found 2 times (qkv_arithmetic.py, old/qkv_arithmetic.py)" in located.problems["qkv_arithmetic"]
    assert located.kind("qkv_arithmetic") == scores.PACKAGING  # the student's packaging, not a file damaged in transit


def test_near_miss_names_are_named_with_their_likely_meaning_and_never_cut_from_the_ignored_list(tmp_path):
    files = {f"notes/file{i:03}.txt": b"x" for i in range(60)}
    files |= {"qkv_arithmetic (1).py": b"# q\n", "complexity_solution.py": b"# c\n"}
    (tmp_path / "sub.zip").write_bytes(zip_bytes(files))
    located = submission.locate(tmp_path / "sub.zip", MODULES)
    assert not located.sources and set(located.missing) == set(MODULES)
    assert located.near_misses == {"complexity_solution.py": "complexity", "qkv_arithmetic (1).py": "qkv_arithmetic"}
    assert "did you mean qkv_arithmetic (1).py? Rename it to qkv_arithmetic.py" in located.problems["qkv_arithmetic"]
    assert "did you mean complexity_solution.py?" in located.problems["complexity"]
    assert [e.split(" (did")[0] for e in located.ignored[:2]] == ["complexity_solution.py", "qkv_arithmetic (1).py"]


@pytest.mark.parametrize(("name", "meant"), [
    ("qkv_arithmetic (1).py", "qkv_arithmetic"), ("complexity_solution.py", "complexity"), ("Copy of complexity.py", "complexity"),
    ("QKV_Arithmetic.py", "qkv_arithmetic"), ("qkv_arithmatic.py", "qkv_arithmetic"), ("my_complexity.py", "complexity"),
    ("complexity.ipynb", "complexity"), ("helpers.py", None), ("README.md", None), ("complexity.py", None),
])
def test_near_miss(name, meant):
    assert submission.near_miss(name, MODULES) == meant


def test_names_the_submission_holds_are_listed_as_valid_inert_text(tmp_path):
    # A file name may hold any byte: undecodable ones come back as lone surrogates, which strict UTF-8 writers refuse.
    folder = tmp_path / "names"
    folder.mkdir()
    for name, source in SOURCES.items():
        (folder / name).write_bytes(source)
    with open(os.path.join(os.fsencode(folder), b"\xff\x1b[2Jnotes.txt"), "w") as f:
        f.write("x")
    located = submission.locate(folder, MODULES)
    (listed,) = located.ignored
    listed.encode("utf-8")
    assert listed == "\\udcff\\x1b[2Jnotes.txt", listed


def test_a_damaged_deflated_module_is_unreadable_never_an_exception(tmp_path):
    (tmp_path / "sub.zip").write_bytes(damage_deflated(zip_bytes(SOURCES), "qkv_arithmetic.py"))
    located = submission.locate(tmp_path / "sub.zip", MODULES)
    assert located.sources == {"complexity": b"# complexity\n"}
    assert "could not be read: its bytes in the zip are damaged (Error -3 while decompressing data" \
        in located.problems["qkv_arithmetic"]
    assert located.kind("qkv_arithmetic") == scores.UNREADABLE


def test_why_a_module_is_not_read_is_a_kind_the_students_packaging_apart_from_damage(tmp_path):
    (tmp_path / "elsewhere.py").write_bytes(b"# q\n")
    os.symlink(tmp_path / "elsewhere.py", tmp_path / "qkv_arithmetic.py")  # a link, as submitted
    (tmp_path / "Complexity (1).py").write_bytes(b"# c\n")
    located = submission.locate(tmp_path, [*MODULES, "shift_matrix"])
    assert [located.kind(m) for m in (*MODULES, "shift_matrix")] == [scores.PACKAGING, scores.MISNAMED, scores.MISSING]


def test_pytests_cache_is_not_reported_as_ignored(tmp_path):
    folder = tmp_path / "handout"
    (folder / ".pytest_cache" / "v" / "cache").mkdir(parents=True)
    (folder / ".pytest_cache" / "README.md").write_text("pytest's cache\n")
    (folder / ".pytest_cache" / "v" / "cache" / "nodeids").write_text("[]\n")
    for name, source in SOURCES.items():
        (folder / name).write_bytes(source)
    located = submission.locate(folder, MODULES)
    assert located.ignored == [] and set(located.sources) == set(MODULES)


@pytest.mark.parametrize(("data", "says"), [
    ("A = 1\n".encode("utf-16"), "is saved as UTF-16 (some Windows editors call it 'Unicode')"),
    ("A = 1\n".encode("utf-16-le"), "is saved as UTF-16"),  # without its byte-order mark
    (b"A = 1\n\x00\x01 binary tail", "holds NUL bytes, so it is not Python source"),
])
def test_a_module_no_python_could_import_is_named_with_the_fix(tmp_path, data, says):
    (tmp_path / f"{MODULES[0]}.py").write_bytes(data)
    located = submission.locate(tmp_path, MODULES)
    assert MODULES[0] not in located.sources and says in located.problems[MODULES[0]]
    assert located.kind(MODULES[0]) == scores.PACKAGING


def test_a_module_in_utf8_with_a_byte_order_mark_and_windows_line_ends_is_read_as_it_is(tmp_path):
    data = b"\xef\xbb\xbfA = 1\r\nB = 2\r\n"
    (tmp_path / f"{MODULES[0]}.py").write_bytes(data)
    assert submission.locate(tmp_path, MODULES).sources[MODULES[0]] == data
