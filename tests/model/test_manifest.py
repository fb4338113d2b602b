"""Manifests load, and a malformed one names the file, the key and what was expected."""

import pytest

from autograder.model import manifest


def test_assignment_lists_problems_with_spec_points(assignment):
    spec_points = {"qkv_arithmetic": 15, "receptive_field": 10, "complexity": 15, "shift_matrix": 15,
                   "random_features": 20, "causal_linear_attention": 25}
    for problem in assignment.problems:
        assert problem.points == spec_points[problem.module]
        assert problem.limits.call_seconds > 0 and problem.limits.memory_mb > 0
    assert assignment.total_points == sum(p.points for p in assignment.problems)


def _problem_folder(tmp_path, text):
    folder = tmp_path / "qkv_arithmetic"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "public.py").write_text("")
    (folder / "problem.yaml").write_text(text)
    return folder


GOOD = "title: T\nmodule: qkv_arithmetic\npoints: 15\nlimits: {call_seconds: 5, memory_mb: 100}\ntests: {public: [tests/public.py], hidden: []}\n"


def test_good_problem_manifest_loads(tmp_path):
    problem = manifest.load_problem(_problem_folder(tmp_path, GOOD))
    assert problem.points == 15 and problem.limits.call_seconds == 5


@pytest.mark.parametrize("text, words", [
    (GOOD.replace("points: 15", "points: many"), ["'points'", "a number of points", "many"]),
    (GOOD.replace("limits: {call_seconds: 5, memory_mb: 100}\n", ""), ["missing key 'limits.call_seconds'"]),
    (GOOD.replace("call_seconds: 5", "call_seconds: -1"), ["'limits.call_seconds'", "positive"]),
    (GOOD.replace("module: qkv_arithmetic", "module: other"), ["'module'", "folder"]),
    (GOOD.replace("[tests/public.py]", "[tests/nope.py]"), ["'tests.public'", "does not exist"]),
    ("- just\n- a list\n", ["mapping"]),
    ("title: [unclosed\n", ["not valid YAML"]),
])
def test_malformed_problem_manifest_is_named(tmp_path, text, words):
    with pytest.raises(manifest.ManifestError) as err:
        manifest.load_problem(_problem_folder(tmp_path, text))
    assert "problem.yaml" in str(err.value)
    for word in words:
        assert word in str(err.value)


def test_assignment_total_must_match(tmp_path):
    _problem_folder(tmp_path, GOOD)
    (tmp_path / "assignment.yaml").write_text("name: a\ntitle: t\npython: '3.11'\ntotal_points: 99\nproblems: [qkv_arithmetic]\n")
    with pytest.raises(manifest.ManifestError, match="total_points"):
        manifest.load(tmp_path / "assignment.yaml")


def test_gradescope_settings_default_to_gradescope_s_and_are_checked(tmp_path):
    _problem_folder(tmp_path, GOOD)
    base = "name: a\ntitle: t\npython: '3.11'\ntotal_points: 15\nproblems: [qkv_arithmetic]\n"
    (tmp_path / "assignment.yaml").write_text(base)
    settings = manifest.load(tmp_path / "assignment.yaml").gradescope
    assert (settings.timeout_minutes, settings.cpus, settings.memory_mb) == (10, 0.5, 768)
    (tmp_path / "assignment.yaml").write_text(base + "gradescope: {memory_mb: 2048, cpus: 1}\n")
    settings = manifest.load(tmp_path / "assignment.yaml").gradescope
    assert (settings.memory_mb, settings.cpus, settings.timeout_minutes) == (2048, 1, 10)
    assert "memory 2048 MB, CPU 1" in settings.describe()
    (tmp_path / "assignment.yaml").write_text(base + "gradescope: {memory_mb: 360}\n")
    with pytest.raises(manifest.ManifestError, match="grader_memory_mb.*leaves nothing"):
        manifest.load(tmp_path / "assignment.yaml")
    (tmp_path / "assignment.yaml").write_text(base + "gradescope: {cpus: many}\n")
    with pytest.raises(manifest.ManifestError, match="'gradescope.cpus' should be the CPU allocation"):
        manifest.load(tmp_path / "assignment.yaml")


def test_visibility_defaults_to_public_at_once_and_hidden_after_publication_and_is_checked(tmp_path):
    _problem_folder(tmp_path, GOOD)
    base = "name: a\ntitle: t\npython: '3.11'\ntotal_points: 15\nproblems: [qkv_arithmetic]\n"
    (tmp_path / "assignment.yaml").write_text(base)
    assert manifest.load(tmp_path / "assignment.yaml").gradescope.visibility == manifest.Visibility("visible", "after_published", "after_published")
    (tmp_path / "assignment.yaml").write_text(base + "gradescope: {visibility: {hidden: after_due_date}}\n")
    assert manifest.load(tmp_path / "assignment.yaml").gradescope.visibility.hidden == "after_due_date"
    (tmp_path / "assignment.yaml").write_text(base + "gradescope: {visibility: {hidden: later}}\n")
    with pytest.raises(manifest.ManifestError, match="'gradescope.visibility.hidden' should be one of visible, hidden"):
        manifest.load(tmp_path / "assignment.yaml")
    (tmp_path / "assignment.yaml").write_text(base + "gradescope: {visibility: {secret: hidden}}\n")
    with pytest.raises(manifest.ManifestError, match="'gradescope.visibility.secret' is not a setting"):
        manifest.load(tmp_path / "assignment.yaml")
