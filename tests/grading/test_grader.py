"""grade(): tests loaded once can grade many submissions, with the same scores as a fresh load each time."""

import subprocess
import sys

from autograder.expected import records
from autograder.grading import grader
from autograder.model import paths, scores
from tests.helpers import reference_submission

MODULES = ["qkv_arithmetic", "random_features"]


def totals(report):
    return {p.module: (p.points, [t.passed for t in p.tests]) for p in report.problems}


def test_given_tests_are_the_ones_run(assignment, tmp_path):
    loaded = grader.load_all_tests(assignment)
    only_first = {m: specs[:1] for m, specs in loaded.items()}
    report = grader.grade(paths.REFERENCE, assignment, modules=["qkv_arithmetic"], tests=only_first)
    (problem,) = report.problems
    assert [t.name for t in problem.tests] == [loaded["qkv_arithmetic"][0].name]


def test_tests_loaded_once_grade_like_fresh_loads(assignment, tmp_path):
    wrong_source = (paths.REFERENCE / "qkv_arithmetic.py").read_text() + "\n\ndef attention_scores(Q, K, scale=1.0):\n    return Q @ K.mT\n"
    wrong = reference_submission(tmp_path / "wrong", replace={"qkv_arithmetic": wrong_source,
                                                              "random_features": "def approximation_error(*a, **k):\n    return 0.5\n"})
    loaded = grader.load_all_tests(assignment)
    shared = [grader.grade(sub, assignment, modules=MODULES, tests=loaded) for sub in (paths.REFERENCE, wrong, paths.REFERENCE)]
    fresh = [grader.grade(sub, assignment, modules=MODULES) for sub in (paths.REFERENCE, wrong)]
    assert totals(shared[0]) == totals(fresh[0]) == totals(shared[2])
    assert totals(shared[1]) == totals(fresh[1])
    assert shared[1].points < shared[0].points


def test_the_grading_process_never_imports_torch(tmp_path):
    # Grading looks expected values up (recorded at build); only the sandboxed worker imports torch.
    script = ("import sys; from autograder.grading import grader; from autograder.model import manifest, paths; "
              "r = grader.grade(paths.REFERENCE, manifest.load(), modules=['qkv_arithmetic', 'causal_linear_attention']); "
              "print(sum(p.points for p in r.problems), sum(p.max_points for p in r.problems), 'torch' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", script], cwd=paths.ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["40.0", "40.0", "False"], proc.stdout


def test_what_the_code_prints_in_hidden_tests_is_kept_for_staff_and_only_measured_for_the_student(assignment, tmp_path):
    # print(Q.tolist()) in every call: a hidden test's inputs would reach the student through the printed output.
    source = (paths.REFERENCE / "qkv_arithmetic.py").read_text() + (
        "\n\n_honest = argmax_attention\n\n"
        "def argmax_attention(Q, K, V):\n    print('inputs', Q.tolist())\n    return _honest(Q, K, V)\n")
    printing = reference_submission(tmp_path / "printing", replace={"qkv_arithmetic": source})
    (problem,) = grader.grade(printing, assignment, modules=["qkv_arithmetic"]).problems
    hidden = {t.name for t in problem.tests if t.hidden}
    assert problem.hidden_printed and set(problem.hidden_printed) <= hidden, (problem.hidden_printed, hidden)
    shown = [line for line in problem.output.splitlines() if line.startswith("inputs")]
    kept = [line for line in problem.staff_output.splitlines() if line.startswith("inputs")]
    assert shown and len(shown) < len(kept) and set(shown) <= set(kept)
    assert all(size > 0 for size in problem.hidden_printed.values())


def test_a_missing_record_costs_only_the_tests_that_needed_it_and_every_other_problem_is_graded(assignment, monkeypatch):
    # Records out of sync with the tests in two problems (one in the middle of the run): those tests cannot be judged,
    # staff are told it is the grader's fault, and every other test of every problem is graded as usual.
    real, unrecorded = records.reference_output, {("complexity", "crossover_length"), ("causal_linear_attention", "recurrent_step")}

    def out_of_sync(module, func, args, kwargs):
        if (module, func) in unrecorded:
            raise records.MissingExpected(f"no expected value is recorded for {module}.{func} with these arguments")
        return real(module, func, args, kwargs)

    monkeypatch.setattr(records, "reference_output", out_of_sync)
    report = grader.grade(paths.REFERENCE, assignment)
    assert [p.module for p in report.problems] == assignment.modules
    for problem in report.problems:
        failed = [t for t in problem.tests if not t.passed]
        if problem.module in {module for module, _ in unrecorded}:
            assert failed and all(t.failure == scores.NO_EXPECTED for t in failed), [(t.name, t.message) for t in failed]
            assert any(t.passed for t in problem.tests), problem.module
        else:
            assert not failed and problem.points == problem.max_points, [(t.name, t.message) for t in failed]
    assert report.grader_faults and all(t.problem in {m for m, _ in unrecorded} for t in report.grader_faults)
    assert grader.fault_notes(report) and set(grader.fault_notes(report)) <= set(report.staff_notes)


def test_a_damaged_record_file_costs_only_its_problem_s_judgements_and_every_other_problem_is_graded(assignment, tmp_path,
                                                                                                    monkeypatch):
    # The handout's or the zip's records of one problem damaged (a sync tool, a cut download): that problem's tests
    # cannot be judged, a grader fault; every other problem is graded as usual from its own records.
    shipped = tmp_path / "expected"
    shipped.mkdir()
    (shipped / "complexity.json").write_text('{"module": "complexity", "hints": {"cut sh')
    monkeypatch.setattr(records, "shipped_folder", lambda root=None: shipped)
    monkeypatch.setattr(records, "_unusable", {})
    records.store.cache_clear()
    try:
        report = grader.grade(paths.REFERENCE, assignment)
    finally:
        records.store.cache_clear()
    for problem in report.problems:
        if problem.module == "complexity":
            failed = [t for t in problem.tests if not t.passed]  # the tests that check a property alone still pass
            assert failed and all(t.failure == scores.NO_EXPECTED and "complexity.json are damaged" in t.message
                                  for t in failed)
        else:
            assert problem.points == problem.max_points, [(t.name, t.message) for t in problem.tests if not t.passed]
    assert report.grader_faults and set(grader.fault_notes(report)) <= set(report.staff_notes)


def test_every_public_test_of_every_problem_runs_before_any_hidden_one(assignment, monkeypatch):
    # A hidden test's inputs may leave a trace no sandbox wipes (the page cache, a counter): no test whose output the
    # student sees may run after one.
    ran = []

    def spy(specs, env, problem, **kwargs):
        ran.extend((problem, spec.hidden) for spec in specs)
        return [scores.TestResult(problem, s.name, s.points, s.hidden, True, "") for s in specs]

    monkeypatch.setattr(grader, "run_tests", spy)
    report = grader.grade(paths.REFERENCE, assignment, modules=MODULES)
    hidden_flags = [hidden for _, hidden in ran]
    assert hidden_flags == sorted(hidden_flags) and True in hidden_flags, ran
    assert {m for m, hidden in ran if not hidden} == {m for m, hidden in ran if hidden} == set(MODULES)
    for problem in report.problems:  # each problem's entries keep their order: public, then hidden
        assert [t.hidden for t in problem.tests] == sorted(t.hidden for t in problem.tests) and problem.tests[-1].hidden


def test_a_module_that_first_fails_to_import_in_a_hidden_test_shows_the_public_entries_no_word_of_it():
    from autograder.reports import results_json

    public = scores.ProblemResult("m", "M", [scores.TestResult("m", "public_one", 1.0, False, True, "")],
                                  output="printed in public\n")
    hidden = scores.ProblemResult("m", "M", [scores.TestResult("m", "hidden_one", 1.0, True, False, "m.py raised secret")],
                                  status="m.py could not be imported: ValueError: secret 0.4863", kind=scores.IMPORT_FAILED,
                                  hidden_printed={"hidden_one": 7}, staff_output="hidden text\n")
    joined = grader._joined(public, hidden)
    assert joined.kind == scores.IMPORT_FAILED and joined.status == grader.FAILED_IN_HIDDEN
    assert joined.output == "printed in public\n" and joined.hidden_printed == {"hidden_one": 7}
    assert joined.staff_output.endswith("hidden text\n")
    report = scores.GradeReport("s", [joined])
    (entry, *_) = results_json.to_results(report)["tests"]
    assert entry["name"].endswith("public_one") and "secret" not in entry["output"], entry
    assert grader._joined(public, None) is public
