"""Leased sandbox uids: one per worker, never an account's, and everything they run can be ended."""

import os
import subprocess
import sys
import time

import pytest

from autograder.sandbox import identity

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="leasing a uid needs root (a non-root grader runs the worker as itself)")


def test_leases_are_distinct_and_not_accounts():
    first, second = identity.lease(), identity.lease()
    try:
        assert first.uid != second.uid
        for lease in (first, second):
            assert not identity._known(lease.uid), f"uid {lease.uid} belongs to an account or a group"
    finally:
        first.release()
        second.release()


def test_a_lease_held_by_another_process_is_not_handed_out():
    code = "from autograder.sandbox import identity; import sys, time; i = identity.lease(); print(i.uid, flush=True); time.sleep(30)"
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        held = int(holder.stdout.readline())
        mine = identity.lease()
        try:
            assert mine.uid != held
        finally:
            mine.release()
    finally:
        holder.kill()
        holder.wait()


def test_kill_all_ends_detached_processes_and_forks_of_the_uid():
    lease = identity.lease()
    try:
        spawner = "for i in 1 2 3 4 5; do (setsid sleep 300 &) ; done; sleep 300"
        subprocess.Popen(["/bin/sh", "-c", spawner], user=lease.uid, group=lease.gid, extra_groups=[], start_new_session=True)
        deadline = time.monotonic() + 10
        while len(identity.processes_of(lease.uid)) < 6 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(identity.processes_of(lease.uid)) >= 6
        assert identity.kill_all(lease.uid, lease.gid) == []
        assert identity.processes_of(lease.uid) == []
    finally:
        lease.release()


def test_release_deletes_what_the_uid_left_in_shared_temp_folders(tmp_path):
    lease = identity.lease()
    left = f"/tmp/left-by-{lease.uid}-{os.getpid()}"
    subprocess.run(["/bin/sh", "-c", f"mkdir {left} && touch {left}/x && chmod 000 {left}"], user=lease.uid, group=lease.gid,
                   extra_groups=[], check=True)
    assert left in identity.files_of(lease.uid)
    lease.release()
    assert not os.path.exists(left)
