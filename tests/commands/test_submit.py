"""`submit` on the command line, and `check --help` saying it takes a zip."""

import subprocess
import sys
import zipfile

from autograder.model import paths


def run(*args, cwd=paths.ROOT):
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=cwd, capture_output=True, text=True, timeout=900)


def test_submit_checks_then_writes_the_zip_to_upload(tmp_path, assignment):
    out = tmp_path / "my.zip"
    proc = run("submit", str(paths.REFERENCE), "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "All 6 modules" not in proc.stdout and f"Wrote {out} with all 6 modules. Upload it to Gradescope" in proc.stdout
    with zipfile.ZipFile(out) as zf:
        assert sorted(zf.namelist()) == sorted(f"{m}.py" for m in assignment.modules)


def test_help_says_check_takes_a_folder_or_a_zip_and_submit_exists():
    proc = run("check", "--help")
    assert "folder or .zip" in proc.stdout and "submit" in proc.stdout
    assert "submit" in run("--help").stdout


def test_an_out_that_cannot_be_written_prints_the_table_then_one_error_line(tmp_path):
    (tmp_path / "a_file").write_text("not a folder")
    out = tmp_path / "a_file" / "my.zip"
    proc = run("submit", str(paths.REFERENCE), "--out", str(out))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr + proc.stdout
    assert "Public tests on" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1].startswith(f"error: could not write {out}: ")
