"""Print a per-problem score table from a Gradescope results.json (ours or otter's)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..model import manifest


def problem_totals(results: dict, modules: list[str]) -> dict[str, tuple[float, float]]:
    """(score, max) per module, summing every test entry whose name starts with the module name."""
    totals = {}
    for module in modules:
        entries = [
            t
            for t in results.get("tests", [])
            if str(t.get("name", "")).startswith(module) and t.get("max_score") is not None
        ]
        totals[module] = (sum(float(t.get("score") or 0) for t in entries), sum(float(t["max_score"]) for t in entries))
    return totals


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m autograder.reports.score_table RESULTS_JSON", file=sys.stderr)
        return 2
    results = json.loads(Path(argv[0]).read_text())
    modules = manifest.load().modules
    width = max(len(m) for m in modules)
    for module, (score, top) in problem_totals(results, modules).items():
        print(f"{module:<{width}}  {score:6g} / {top:g}")
    print(f"{'TOTAL':<{width}}  {float(results.get('score', 0)):6g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
