"""The slowest call of the reference (and of each fair alternative) at Gradescope's CPU share, against its limit.

Grades the reference and every ``fair/`` variant, problem by problem, in a cgroup capped like
Gradescope's default container (the manifest's CPU and memory), and reports for each the slowest
call, the problem's per-call limit, their ratio (the headroom), and the time all calls took against
the problem's budget. Target: the reference keeps at least 5x headroom in every problem.

Run (as root, for the cgroup): .venv/bin/python bench/bench_call_headroom.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.gradescope import container  # noqa: E402
from autograder.grading import grader, time_rules  # noqa: E402
from autograder.model import manifest  # noqa: E402
from autograder.staff import validate  # noqa: E402

TARGET = 5.0


def measure() -> None:
    """Inside the cgroup: grade every variant and print one JSON line each."""
    assignment = manifest.load()
    session = grader.reusable_session(assignment)
    loaded = grader.load_all_tests(assignment)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for problem in assignment.problems:
                for label, kind, source in validate.variant_sources(problem):
                    if kind not in ("reference", "fair"):
                        continue
                    folder = Path(tmp) / problem.module / label.replace(":", "_")
                    folder.mkdir(parents=True)
                    (folder / f"{problem.module}.py").write_text(source)
                    report = grader.grade(folder, assignment, modules=[problem.module], session=session, tests=loaded)
                    calls = [e for e in session.exchanges if e.op == "call"]
                    slowest = max(calls, key=lambda c: c.seconds)
                    print(json.dumps({"module": problem.module, "label": label, "kind": kind, "func": slowest.func,
                                      "slowest": slowest.seconds, "total": sum(c.seconds for c in calls),
                                      "limit": problem.limits.call_seconds, "budget": time_rules.problem_budget(problem),
                                      "full": report.points == report.max_points}), flush=True)
    finally:
        session.close()


def main() -> None:
    settings = manifest.load().gradescope
    argv = [sys.executable, __file__, "--inside"]
    try:
        group = container.create(container.Caps(cpus=settings.cpus, memory_mb=settings.memory_mb))
        where = f"in a cgroup capped at {settings.cpus:g} CPU and {settings.memory_mb} MB"
    except container.CgroupUnavailable as exc:
        group, where = None, f"WITHOUT caps ({exc})"
    try:
        proc = subprocess.run(group.entry_command(argv) if group else argv, capture_output=True, text=True, cwd=ROOT)
    finally:
        if group:
            group.close()
    rows = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    if not rows:
        raise SystemExit(proc.stderr[-3000:])
    print(f"Slowest call per variant, {where}\n")
    print(f"{'problem':<24} {'variant':<42} {'slowest call':<30} {'s':>6} {'limit':>6} {'headroom':>9} {'all calls':>10} {'budget':>7}")
    for r in rows:
        print(f"{r['module']:<24} {r['label']:<42} {r['func']:<30} {r['slowest']:6.2f} {r['limit']:6g} {r['limit'] / r['slowest']:8.1f}x "
              f"{r['total']:10.2f} {r['budget']:7g}{'' if r['full'] else '   NOT FULL MARKS'}")
    worst = min((r for r in rows if r["kind"] == "reference"), key=lambda r: r["limit"] / r["slowest"])
    print(f"\nreference: smallest headroom {worst['limit'] / worst['slowest']:.1f}x ({worst['module']}.{worst['func']}); target >= {TARGET:g}x")
    slowest_fair = min((r for r in rows if r["kind"] == "fair"), key=lambda r: r["limit"] / r["slowest"])
    print(f"fair alternatives: smallest headroom {slowest_fair['limit'] / slowest_fair['slowest']:.1f}x "
          f"({slowest_fair['module']} {slowest_fair['label']}); every one full marks: {all(r['full'] for r in rows)}")


if __name__ == "__main__":
    measure() if "--inside" in sys.argv else main()
