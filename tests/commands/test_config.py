"""`config`: every environment variable and tunable, listed once in autograder/settings.py, with the value in force."""

import re
import subprocess
import sys

from autograder import settings
from autograder.grading import time_rules
from autograder.model import manifest, paths


def test_every_environment_variable_the_harness_or_its_tests_read_is_listed_in_settings():
    named = set()
    for folder in ("autograder", "tests", "bench"):
        for path in (paths.ROOT / folder).rglob("*.py"):
            named |= set(re.findall(r"AUTOGRADER_[A-Z][A-Z_]*[A-Z]", path.read_text(encoding="utf-8")))
    named -= {"AUTOGRADER_NO"}  # the prefix of the three AUTOGRADER_NO_<LAYER> switches
    listed = {s.name for s in settings.ALL if s.env}
    assert named <= listed, f"read but not listed in autograder/settings.py: {sorted(named - listed)}"


def test_every_setting_has_a_reason_and_names_a_module_that_uses_it():
    for s in settings.ALL:
        assert len(s.reason) > 20, s.name
        assert (paths.PACKAGE_DIR / s.where).is_file() or (paths.ROOT / s.where).is_file(), (s.name, s.where)
        if not s.env:
            assert s.name in (paths.PACKAGE_DIR / s.where).read_text(encoding="utf-8"), (s.name, s.where)


def test_no_module_gives_a_setting_a_value_of_its_own():
    tunables = {s.name for s in settings.ALL if not s.env}
    own = [f"{path.relative_to(paths.ROOT)}: {name}" for path in paths.PACKAGE_DIR.rglob("*.py") if path.name != "settings.py"
           for name in re.findall(r"^([A-Z][A-Z0-9_]*)\s*(?::[^=]+)?=", path.read_text(encoding="utf-8"), re.MULTILINE)
           if name in tunables]
    assert not own, f"defined again outside autograder/settings.py (import them from there): {own}"


def test_config_prints_every_setting_with_its_value_in_force_and_the_assignment():
    env = {"AUTOGRADER_PORTABLE": "1", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-m", "autograder", "config"], cwd=paths.ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "AUTOGRADER_PORTABLE=1" in out and "AUTOGRADER_UID_BASE unset (default 64000)" in out
    for s in settings.ALL:
        assert s.name in out, s.name
    assert f"BUDGET_FACTOR = {settings.BUDGET_FACTOR!r}" in out and "cleanup.MAX_DEPTH = " in out
    assignment = manifest.load()
    assert f"{len(assignment.problems)} problems, {assignment.total_points:g} points" in out
    assert f"worst case of a submission: {time_rules.time_bound(assignment):g} s" in out
