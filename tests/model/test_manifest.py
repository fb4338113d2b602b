"""Manifests load, and a malformed one names the file, the key and what was expected; points come from the tests."""

import pytest

from autograder.model import manifest

# SPEC.md's table of problems and points: a problem of the contract keeps its points (a course's new problem adds its own).
SPEC_POINTS = {"qkv_arithmetic": 15, "receptive_field": 10, "complexity": 15, "shift_matrix": 15,
               "random_features": 20, "causal_linear_attention": 25}


def test_the_spec_s_problems_carry_the_spec_s_points(assignment):
    assert set(SPEC_POINTS) <= set(assignment.modules)
    for module, points in SPEC_POINTS.items():
        assert assignment.problem(module).points == points, module
    assert assignment.total_points == sum(p.points for p in assignment.problems)
    for problem in assignment.problems:
        assert problem.limits.call_seconds > 0


TEST_FILE = "from autograder.testkit import test_case\n\n\n@test_case(points={points})\ndef test_a(m):\n    pass\n"


def _problem_folder(tmp_path, text, points="2", hidden_points="3"):
    folder = tmp_path / "qkv_arithmetic"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "public.py").write_text(TEST_FILE.format(points=points))
    (folder / "tests" / "hidden.py").write_text(TEST_FILE.format(points=hidden_points).replace("points=", "hidden=True, points="))
    (folder / "problem.yaml").write_text(text)
    return folder


GOOD = "title: T\nlimits: {call_seconds: 5}\ntests: {public: [tests/public.py], hidden: [tests/hidden.py]}\n"
DEFAULTS = {"limits": {"call_seconds": 7}, "tests": {"public": ["tests/public.py"], "hidden": ["tests/hidden.py"]}}


def test_good_problem_manifest_loads_with_its_points_read_from_the_tests(tmp_path):
    problem = manifest.load_problem(_problem_folder(tmp_path, GOOD))
    assert problem.points == 5 and problem.limits.call_seconds == 5 and problem.module == "qkv_arithmetic"


def test_a_problem_takes_the_assignment_s_defaults_and_its_own_keys_win(tmp_path):
    problem = manifest.load_problem(_problem_folder(tmp_path, "title: T\n"), DEFAULTS)
    assert problem.limits.call_seconds == 7 and [p.name for p in problem.hidden_tests] == ["hidden.py"]
    problem = manifest.load_problem(_problem_folder(tmp_path / "b", "title: T\ntests: {hidden: []}\nlimits: {call_seconds: 2}\n"), DEFAULTS)
    assert problem.limits.call_seconds == 2 and problem.hidden_tests == () and problem.points == 2


def test_a_handout_manifest_keeps_the_points_of_the_hidden_tests_it_leaves_behind(tmp_path):
    problem = manifest.load_problem(_problem_folder(tmp_path, "title: T\ntests: {hidden: []}\nhidden_points: 3\n"), DEFAULTS)
    assert problem.points == 5
    with pytest.raises(manifest.ManifestError, match="hidden_points"):
        manifest.load_problem(_problem_folder(tmp_path / "b", GOOD + "hidden_points: 3\n"))


@pytest.mark.parametrize("text, words", [
    (GOOD.replace("limits: {call_seconds: 5}\n", ""), ["missing key 'limits.call_seconds'"]),
    (GOOD.replace("call_seconds: 5", "call_seconds: -1"), ["'limits.call_seconds'", "positive"]),
    (GOOD + "module: qkv_arithmetic\n", ["remove key 'module'", "folder's name"]),
    (GOOD + "points: 15\n", ["remove key 'points'", "@test_case(points=...)"]),
    (GOOD.replace("call_seconds: 5", "call_seconds: 5, memory_mb: 100"), ["remove key 'limits.memory_mb'", "worker_memory_mb"]),
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


@pytest.mark.parametrize("points, words", [("POINTS", ["test_a", "positive number written out", "POINTS"]),
                                           ("0", ["test_a", "positive number"])])
def test_points_that_cannot_be_read_without_running_the_file_are_named(tmp_path, points, words):
    with pytest.raises(manifest.ManifestError) as err:
        manifest.load_problem(_problem_folder(tmp_path, GOOD, points=points))
    assert "public.py: line 4" in str(err.value)
    for word in words:
        assert word in str(err.value)


NESTED = """from autograder.testkit import test_case
@test_case(points=1)
def test_a(m):
    @test_case(points=2)
    def inner(m):
        pass
class Group:
    @test_case(points=4)
    async def test_b(self):
        pass
if True:
    @test_case(points=8)
    def test_c(m):
        pass
else:
    @test_case(points=16)
    def test_d(m):
        pass
try:
    @test_case(points=32)
    def test_e(m):
        pass
except ImportError:
    @test_case(points=64)
    def test_f(m):
        pass
else:
    pass
finally:
    with open(__file__):
        for _ in ():
            pass
        else:
            while False:
                pass
            else:
                @test_case(points=128)
                def test_g(m):
                    pass
match 1:
    case 1:
        @test_case(points=256)
        def test_h(m):
            pass
value = [lambda: 0 for _ in ()]
"""


def test_the_points_of_a_test_case_anywhere_a_definition_can_be_are_read(tmp_path):
    # A definition is a statement: a test case nested in any statement's body is found (and a nested one then fails
    # the check that the loaded tests carry the manifest's points: every test must be at the top level).
    path = tmp_path / "nested.py"
    path.write_text(NESTED)
    assert manifest.points_in(path) == 511
    path.write_text(NESTED.replace("@test_case(points=128)", "@test_case(hidden=True)"))
    with pytest.raises(manifest.ManifestError, match="nested.py: line 37: test test_g has no points="):
        manifest.points_in(path)


@pytest.mark.parametrize(("name", "says"), [("multi-query", "lowercase ASCII letters"), ("_private", "starting with a letter"),
                                           ("import", "Python keyword"), ("math", "imported already"),
                                           ("numpy", "imported already"), ("conftest", "one would hide the other")])
def test_a_folder_that_is_no_module_name_is_refused(tmp_path, name, says):
    folder = _problem_folder(tmp_path, GOOD)
    folder = folder.rename(tmp_path / name)
    with pytest.raises(manifest.ManifestError, match=f"folder's name '{name}' is the module's name, and .*{says}"):
        manifest.load_problem(folder)


def test_the_assignment_s_total_is_the_sum_and_is_not_declared(tmp_path):
    _problem_folder(tmp_path, GOOD)
    base = "name: a\ntitle: t\npython: '3.11'\nproblems: [qkv_arithmetic]\n"
    (tmp_path / "assignment.yaml").write_text(base)
    assert manifest.load(tmp_path / "assignment.yaml").total_points == 5
    (tmp_path / "assignment.yaml").write_text(base + "total_points: 5\n")
    with pytest.raises(manifest.ManifestError, match="remove key 'total_points'"):
        manifest.load(tmp_path / "assignment.yaml")
    (tmp_path / "assignment.yaml").write_text(base.replace("[qkv_arithmetic]", "[qkv_arithmetic, qkv_arithmetic]"))
    with pytest.raises(manifest.ManifestError, match="twice"):
        manifest.load(tmp_path / "assignment.yaml")


def test_gradescope_settings_default_to_gradescope_s_and_are_checked(tmp_path):
    _problem_folder(tmp_path, GOOD)
    base = "name: a\ntitle: t\npython: '3.11'\nproblems: [qkv_arithmetic]\n"
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
    base = "name: a\ntitle: t\npython: '3.11'\nproblems: [qkv_arithmetic]\n"
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


def test_each_read_sees_the_file_as_it_is_now_and_gets_its_own_copy(tmp_path):
    folder = _problem_folder(tmp_path, GOOD)
    first = manifest.load_problem(folder)
    (folder / "problem.yaml").write_text(GOOD.replace("call_seconds: 5", "call_seconds: 9"))
    assert first.limits.call_seconds == 5 and manifest.load_problem(folder).limits.call_seconds == 9
    data = manifest._read(folder / "problem.yaml")
    data["limits"]["call_seconds"] = 1  # a caller that changes what it read changes nothing for the next one
    assert manifest.load_problem(folder).limits.call_seconds == 9
