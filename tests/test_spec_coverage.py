"""docs/spec_coverage.md stays true.

Every rule row names hidden tests and mistakes that exist; validation sees each named mistake lose
points on its own problem (a mistake file replaces only its problem's module) by failing the row's
hidden tests; every mistake file is named by some row; every leniency's fair variants keep full marks.
"""

import ast
from collections import Counter
from types import SimpleNamespace

import pytest

from autograder.model import manifest
from autograder.staff import solutions

from .spec_table import Rule, read

ASSIGNMENT = manifest.load()
MODULES = ASSIGNMENT.modules
RULES, LENIENCIES = read(MODULES)


def prefix(rule_id):
    """A rule id's problem prefix (``qkv.`` of ``qkv.scale``): ids stay stable and say at a glance which problem they belong to."""
    return rule_id.split(".", 1)[0] + "."


def hidden_test_names(module):
    """The names the runner gives the module's hidden tests, read without running the files (which start reference work)."""
    names = set()
    for path in ASSIGNMENT.problem(module).hidden_tests:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for decorator in getattr(node, "decorator_list", []):
                if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "test_case":
                    given = [k.value.value for k in decorator.keywords if k.arg == "name" and isinstance(k.value, ast.Constant)]
                    names.add(given[0] if given and given[0] else node.name.removeprefix("test_"))
    return names


def rules_of(module):
    return [rule for rule in RULES if rule.module == module]


def row_problems(rule, hidden_tests, mistakes):
    """What is wrong with a row on paper: empty cells, or names of tests or mistakes that do not exist."""
    problems = []
    if not rule.clause or not rule.tests or not rule.mistakes:
        problems.append(f"{rule.id}: every rule needs its SPEC clause, at least one hidden test and at least one mistake")
    problems += [f"{rule.id}: no hidden test {name!r} in {rule.module}" for name in rule.tests if name not in hidden_tests]
    problems += [f"{rule.id}: no mistake {rule.module}/mistakes/{name}.py" for name in rule.mistakes if name not in mistakes]
    return problems


def outcome_problems(rule, outcomes):
    """What validation contradicts: a named mistake that keeps full marks or fails none of the named tests, a test no mistake fails."""
    problems, failed = [], {}
    for name in rule.mistakes:
        outcome = outcomes.get(f"mistake:{name}")
        if outcome is None:
            problems.append(f"{rule.id}: validation did not grade mistake {name!r}")
            continue
        if not outcome.as_expected:
            problems.append(f"{rule.id}: mistake {name!r} keeps full marks ({outcome.result.points:g}/{outcome.result.max_points:g})")
        failed[name] = {t.name for t in outcome.result.tests if t.hidden and not t.passed}
        if not failed[name] & set(rule.tests):
            problems.append(f"{rule.id}: mistake {name!r} fails none of the row's hidden tests (it fails {sorted(failed[name])})")
    problems += [f"{rule.id}: hidden test {test!r} fails for none of the row's mistakes" for test in rule.tests
                 if failed and not any(test in names for names in failed.values())]
    return problems


def test_every_problem_has_rules_and_ids_are_unique():
    assert all(rules_of(m) for m in MODULES), [m for m in MODULES if not rules_of(m)]
    repeated = [rule_id for rule_id, n in Counter(r.id for r in RULES).items() if n > 1]
    assert not repeated, f"rule ids appear more than once: {repeated}"
    prefixes = {m: Counter(prefix(r.id) for r in rules_of(m)) for m in MODULES}
    own = {m: found.most_common(1)[0][0] for m, found in prefixes.items() if found}  # a problem's prefix: that of most of its ids
    misplaced = [r.id for r in RULES if "." not in r.id or prefix(r.id) != own[r.module]]
    assert not misplaced, f"rule ids outside their problem's prefix ({own}): {misplaced}"
    shared = [p for p, n in Counter(own.values()).items() if n > 1]
    assert not shared, f"problems share a rule-id prefix: {shared}"


@pytest.mark.parametrize("module", MODULES)
def test_rows_name_existing_hidden_tests_and_mistakes(module):
    hidden, known = hidden_test_names(module), {v.name for v in solutions.mistakes(module)}
    problems = [p for rule in rules_of(module) for p in row_problems(rule, hidden, known)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("module", MODULES)
def test_every_mistake_is_in_the_table(module):
    named = {name for rule in rules_of(module) for name in rule.mistakes}
    missing = sorted({v.name for v in solutions.mistakes(module)} - named)
    assert not missing, f"mistakes of {module} that no rule of docs/spec_coverage.md names: {missing}"


@pytest.mark.parametrize("module", MODULES)
def test_named_mistakes_fail_the_named_hidden_tests(module, graded_variants):
    outcomes = {o.label: o for o in graded_variants(ASSIGNMENT.problem(module))}
    problems = [p for rule in rules_of(module) for p in outcome_problems(rule, outcomes)]
    assert not problems, "\n".join(problems)


def test_leniencies_keep_full_marks(graded_variants):
    problems = []
    for leniency in LENIENCIES:
        if not leniency.fair:
            problems.append(f"{leniency.id}: names no fair variant")
        for ref in leniency.fair:
            module, _, name = ref.partition("/")
            if module not in MODULES:
                problems.append(f"{leniency.id}: {ref!r} is not module/fair_variant")
                continue
            outcome = {o.label: o for o in graded_variants(ASSIGNMENT.problem(module))}.get(f"fair:{name}")
            if outcome is None:
                problems.append(f"{leniency.id}: no fair variant {module}/fair/{name}.py")
            elif not outcome.as_expected:
                problems.append(f"{leniency.id}: fair variant {ref} gets {outcome.result.points:g}/{outcome.result.max_points:g}")
    assert LENIENCIES and not problems, "\n".join(problems)


# ---- the checks themselves can fail ----

def planted(tests=("t_a",), mistakes=("m_a",), clause="a clause"):
    return Rule("qkv_arithmetic", "qkv.planted", clause, tuple(tests), tuple(mistakes))


def graded(points, failed):
    tests = [SimpleNamespace(name=n, hidden=True, passed=n not in failed) for n in ("t_a", "t_b")]
    return SimpleNamespace(as_expected=points < 2, result=SimpleNamespace(points=points, max_points=2, tests=tests))


def test_row_checks_catch_empty_cells_and_unknown_names():
    assert row_problems(planted(), {"t_a"}, {"m_a"}) == []
    assert row_problems(planted(tests=()), {"t_a"}, {"m_a"})
    assert row_problems(planted(mistakes=()), {"t_a"}, {"m_a"})
    assert row_problems(planted(clause=""), {"t_a"}, {"m_a"})
    assert any("no hidden test" in p for p in row_problems(planted(tests=("t_x",)), {"t_a"}, {"m_a"}))
    assert any("no mistake" in p for p in row_problems(planted(mistakes=("m_x",)), {"t_a"}, {"m_a"}))


def test_outcome_checks_catch_full_marks_and_tests_that_do_not_fail():
    assert outcome_problems(planted(), {"mistake:m_a": graded(1, {"t_a"})}) == []
    assert any("keeps full marks" in p for p in outcome_problems(planted(), {"mistake:m_a": graded(2, set())}))
    assert any("fails none of the row's hidden tests" in p for p in outcome_problems(planted(), {"mistake:m_a": graded(1, {"t_b"})}))
    assert any("fails for none" in p for p in outcome_problems(planted(tests=("t_a", "t_b")), {"mistake:m_a": graded(1, {"t_a"})}))
    assert any("did not grade" in p for p in outcome_problems(planted(), {}))


def test_reading_refuses_a_malformed_row(tmp_path):
    doc = tmp_path / "coverage.md"
    doc.write_text("## qkv_arithmetic\n\n| `qkv.x` | clause | `t_a` |\n", encoding="utf-8")
    with pytest.raises(ValueError, match="expected cells"):
        read(MODULES, doc)
    doc.write_text("## qkv_arithmetic\n\n| `qkv.x` | `\\|q\\|` | `t_a`, `t_b` | `m_a` |\n## Leniencies\n\n| `l.x` | clause | `qkv_arithmetic/f` |\n",
                   encoding="utf-8")
    rules, leniencies = read(MODULES, doc)
    assert rules == [Rule("qkv_arithmetic", "qkv.x", "`\\|q\\|`", ("t_a", "t_b"), ("m_a",))]
    assert [(le.id, le.fair) for le in leniencies] == [("l.x", ("qkv_arithmetic/f",))]
