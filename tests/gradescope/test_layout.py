"""/autograder as Gradescope lays it out: made exclusively, filled from the zip and the upload, put back afterwards."""

import os
import stat
import threading
import time
import zipfile

import pytest

from autograder.gradescope import layout


def _autograder_zip(path):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("run_autograder", "#!/bin/sh\necho hi\n")
        zf.writestr("files/_autograder_harness/x.py", "X = 1\n")
    return path


def test_an_existing_folder_is_put_back_and_a_stale_emulation_is_removed(tmp_path):
    root, lock = tmp_path / "autograder", tmp_path / "lock"
    root.mkdir()
    (root / "theirs.txt").write_text("keep me")
    with layout.exclusive_root(root, lock) as made:
        assert made == root and sorted(p.name for p in root.iterdir()) == [layout.MARKER]
        (root / "ours.txt").write_text("scratch")
    assert sorted(p.name for p in root.iterdir()) == ["theirs.txt"]
    (tmp_path / "autograder" / "theirs.txt").unlink()
    (root / layout.MARKER).touch()  # what a killed emulation leaves
    with layout.exclusive_root(root, lock):
        pass
    assert not root.exists() and not list(tmp_path.glob("autograder.before-*"))


def test_two_emulations_take_turns(tmp_path):
    root, lock, inside = tmp_path / "autograder", tmp_path / "lock", []

    def one(name):
        with layout.exclusive_root(root, lock):
            inside.append(name)
            time.sleep(0.3)
            inside.append(name)

    threads = [threading.Thread(target=one, args=(n,)) for n in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert inside in (["a", "a", "b", "b"], ["b", "b", "a", "a"])


def _message_as_nobody(root, lock) -> str:
    """The LayoutError an unprivileged user gets (as root: in a child that became uid 65534)."""
    def attempt() -> str:
        try:
            with layout.exclusive_root(root, lock):
                return "no error"
        except layout.LayoutError as exc:
            return str(exc)

    if os.geteuid() != 0:
        return attempt()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        os.setuid(65534)
        os.write(write, attempt().encode())
        os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    with os.fdopen(read) as f:
        return f.read()


def test_no_write_access_names_the_folder_and_the_fix(tmp_path):
    parent = tmp_path / "ro"
    parent.mkdir()
    os.chmod(parent, 0o555)  # not writable by anyone but root, so also not by the suite's own user when it is not root
    os.chmod(tmp_path, 0o755)
    message = _message_as_nobody(parent / "autograder", tmp_path / "lock")
    assert f"needs write access to {parent}" in message and "run as root" in message


def test_lay_out_folder_submission_keeps_links_and_fifos(tmp_path):
    sub = tmp_path / "sub"
    (sub / "inner").mkdir(parents=True)
    (sub / "inner" / "qkv_arithmetic.py").write_text("A = 1\n")
    os.symlink("/etc/passwd", sub / "link.py")
    os.mkfifo(sub / "pipe.py")
    root = tmp_path / "ag"
    root.mkdir()
    layout.lay_out(root, _autograder_zip(tmp_path / "a.zip"), sub)
    assert (root / "source" / "files" / "_autograder_harness" / "x.py").exists()
    assert os.stat(root / "run_autograder").st_mode & 0o111
    assert (root / "submission" / "inner" / "qkv_arithmetic.py").read_text() == "A = 1\n"
    assert os.readlink(root / "submission" / "link.py") == "/etc/passwd"
    assert stat.S_ISFIFO(os.lstat(root / "submission" / "pipe.py").st_mode)
    assert (root / "results").is_dir() and (root / "submission_metadata.json").exists()


def test_a_zip_that_is_no_autograder_zip_is_named_with_the_fix(tmp_path):
    root = tmp_path / "ag"
    root.mkdir()
    (tmp_path / "damaged.zip").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(layout.LayoutError, match=r"damaged.zip cannot be unpacked \(.*\); build it again"):
        layout.lay_out(root, tmp_path / "damaged.zip", tmp_path)
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as zf:
        zf.writestr("notes.txt", "not an autograder")
    with pytest.raises(layout.LayoutError, match="other.zip holds no run_autograder"):
        layout.lay_out(tmp_path / "ag2", tmp_path / "other.zip", tmp_path)


def test_lay_out_zip_upload_is_unpacked_safely(tmp_path):
    upload = tmp_path / "up.zip"
    with zipfile.ZipFile(upload, "w") as zf:
        zf.writestr("hw/qkv_arithmetic.py", "A = 1\n")
        zf.writestr("../escape.py", "B = 1\n")
        zf.writestr("/abs.py", "C = 1\n")
    root = tmp_path / "ag"
    root.mkdir()
    layout.lay_out(root, _autograder_zip(tmp_path / "a.zip"), upload)
    files = sorted(str(p.relative_to(root / "submission")) for p in (root / "submission").rglob("*") if p.is_file())
    assert files == ["hw/qkv_arithmetic.py"] and not (tmp_path / "escape.py").exists()
