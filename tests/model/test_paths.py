"""What the copies of the package leave out: the staff's commands, by listing the students' ones."""

import shutil

from autograder.commands import COMMANDS
from autograder.model import paths


def test_every_command_but_the_students_is_staff_s():
    staff = set(paths.staff_commands())
    assert staff == {f"commands.{c}" for c in COMMANDS} - {f"commands.{c}" for c in paths.STUDENT_COMMANDS}


def test_a_command_module_not_listed_for_students_stays_behind(tmp_path, monkeypatch):
    package = tmp_path / "autograder"
    (package / "commands").mkdir(parents=True)
    for name in ("__init__", "common", "check", "submit", "grade", "a_new_one"):
        (package / "commands" / f"{name}.py").write_text("")
    (package / "staff").mkdir()
    (package / "staff" / "tool.py").write_text("")
    monkeypatch.setattr(paths, "PACKAGE_DIR", package)
    copy = tmp_path / "copy"
    shutil.copytree(package, copy, ignore=paths.package_without("staff", *paths.staff_commands()))
    assert sorted(p.name for p in (copy / "commands").iterdir()) == ["__init__.py", "check.py", "common.py", "submit.py"]
    assert not (copy / "staff").exists()
