"""What Gradescope accepts as /autograder/results/results.json (its autograder specification)."""

from __future__ import annotations

VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
STATUS = {"passed", "failed"}


def problems(results: object) -> list[str]:
    """Everything in ``results`` that Gradescope would reject or misread; empty when it is valid."""
    if not isinstance(results, dict):
        return [f"results.json holds a {type(results).__name__}, not an object"]
    found = []
    tests = results.get("tests", [])
    if not isinstance(tests, list):
        return ["'tests' is not a list"]
    if not _number(results.get("score")) and not all(isinstance(t, dict) and _number(t.get("score")) for t in tests):
        found.append("no top-level 'score' and not every test has one")
    for key in ("visibility", "stdout_visibility"):
        if key in results and results[key] not in VISIBILITY:
            found.append(f"'{key}' is {results[key]!r}, not one of {sorted(VISIBILITY)}")
    for i, test in enumerate(tests):
        if not isinstance(test, dict):
            found.append(f"tests[{i}] is not an object")
            continue
        for key in ("score", "max_score"):
            if key in test and not _number(test[key]):
                found.append(f"tests[{i}].{key} is {test[key]!r}, not a number")
        for key in ("name", "output"):
            if key in test and not isinstance(test[key], str):
                found.append(f"tests[{i}].{key} is not a string")
        if "visibility" in test and test["visibility"] not in VISIBILITY:
            found.append(f"tests[{i}].visibility is {test['visibility']!r}")
        if "status" in test and test["status"] not in STATUS:
            found.append(f"tests[{i}].status is {test['status']!r}")
    return found


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
