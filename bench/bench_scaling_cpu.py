"""The CPU time, read in /proc, of the long-sequence calls of problems 5 and 6, through the sandbox, and the verdicts.

For the reference, every fair variant, the quadratic mistakes and the cost cheats of ``tests/hostile/cost``, the
long-sequence test's calls are made as grading makes them (``testkit/scaling.py``'s sizes, or ``--sizes``), in one
worker for all (validate's: Gradescope's room), ``--runs`` times each; before each run the grader measures its
yardstick again (``testkit/calibration.py``). Prints, per variant, the median CPU seconds at each size, then over the
runs: what the long call took more than the first in yardsticks, the growth the check judges, how many runs the check
passes, and how many the check with an absolute floor of 0.25 s at 8192 tokens passes on this machine and on machines
2 and 4 times as fast per core (every CPU time divided); then the call at 16384 tokens in yardsticks of its size, which
the cap judges. The check's own verdict does not change when every figure,
the yardstick's included, is divided alike.

Run: .venv/bin/python bench/bench_scaling_cpu.py [--runs 3] [--only NAME_PART] [--sizes 256c,1024c,2048,8192]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import autograder.testkit as testkit  # noqa: E402
from autograder.grading import worker_memory  # noqa: E402
from autograder.grading.grader import grade_problem  # noqa: E402
from autograder.grading.runner import load_tests  # noqa: E402
from autograder.model import manifest, paths  # noqa: E402
from autograder.sandbox import WorkerSession  # noqa: E402
from autograder.staff import validate  # noqa: E402
from autograder.testkit import Call, calibration, scaling  # noqa: E402

LONG_TEST = {"random_features": "rff_attention_long_sequence_in_linear_memory",
             "causal_linear_attention": "long_sequence_in_linear_memory"}
QUADRATIC = re.compile(r"quadratic|over_prefix")
CHEATS = {"blockwise_popped_modes": "random_features", "quadratic_in_child": "causal_linear_attention",
          "quadratic_meters_undone": "causal_linear_attention"}
ABSOLUTE_FLOOR, ABSOLUTE_GROWTH_FLOOR = 0.25, 0.005  # the check before the yardstick, for comparison
# (tokens, counted in torch): the growth check's three sizes, then the capped call's
SIZES: list[tuple[int, bool]] = [(256, True), (1024, True), (scaling.LONG_N, False), (scaling.CAPPED_N, False)]
MEASURED: dict[str, float | str] = {}


def key(n: int, counted: bool) -> str:
    return f"{n}{'c' if counted else ''}"


def measure_sizes(function, inputs, never, instead, long=True, capped_inputs=None) -> None:  # noqa: ANN001 - as
    """Stands in for ``expect_linear_in_tokens`` in the long-sequence test: the CPU time of every size (the capped call's
    on its own inputs, where the test gives them), nothing judged."""
    for n, counted in SIZES:
        if n == scaling.CAPPED_N and capped_inputs is None:
            continue
        made = capped_inputs if n == scaling.CAPPED_N else inputs
        try:
            cost = Call(function, *made(n)).cost(work=counted,
                                                   memory_mb=scaling.memory_room_mb(n))
            MEASURED[key(n, counted)] = cost["cpu_seconds"]
        except AssertionError as exc:
            MEASURED[key(n, counted)] = str(exc).splitlines()[0][:60]


def variants(module: str, only: str) -> list[tuple[str, str]]:
    """(label, source) of the reference, the fair variants, the quadratic mistakes and the cheats of ``module``."""
    problem = manifest.load().problem(module)
    found = [(label, source) for label, kind, source in validate.variant_sources(problem)
             if kind in ("reference", "fair") or (kind == "mistake" and QUADRATIC.search(label))]
    reference = (paths.REFERENCE / f"{module}.py").read_text()
    found += [(f"cheat:{case}", reference + "\n\n" + (ROOT / "tests/hostile/cost" / f"{case}.py").read_text())
              for case, of in CHEATS.items() if of == module]
    return [(label, source) for label, source in found if only in label]


def measure(runs: int, only: str) -> list[dict]:
    testkit.expect_linear_in_tokens = measure_sizes  # before the test files load: they take it from testkit
    assignment = manifest.load()
    rows = []
    for module in LONG_TEST:
        problem = assignment.problem(module)
        tests = [t for t in load_tests(problem, include_hidden=True) if t.name == LONG_TEST[module]]
        found = variants(module, only)
        names = {label: f"{module}__{re.sub(r'[^0-9a-zA-Z_]', '_', label)}" for label, _ in found}
        session = WorkerSession(memory_mb=worker_memory.gradescope_room(assignment).mb, start_now=True)
        try:
            session.switch(session.stage({names[label]: source.encode() for label, source in found}))
            for run in range(runs):
                for label, _ in found:
                    calibration._MEASURED.clear()
                    MEASURED.clear()
                    MEASURED["yardstick"] = calibration.linear_attention_seconds(scaling.LONG_N)
                    grade_problem(problem, tests, session, worker_name=names[label])
                    rows.append({"module": module, "label": label, "run": run, **MEASURED})
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        finally:
            session.close()
    return rows


def verdicts(row: dict) -> tuple[float, float, bool, list[bool]] | None:
    """(extra CPU at LONG_N in yardsticks, judged growth, passes the check, passes the absolute floor's at speed 1, 2,
    4), or None where a call did not return."""
    small, large, long = (row.get(key(n, c)) for n, c in ((256, True), (1024, True), (scaling.LONG_N, False)))
    if not all(isinstance(x, float) for x in (small, large, long)):
        return None
    floor = scaling.CPU_FLOOR_LINEAR_FORMS * row["yardstick"]
    growth = (long - small) / max(large - small, floor / scaling.CPU_GROWTH_LIMIT)
    before = [long / s <= ABSOLUTE_FLOOR or (long - small) / max(large - small, s * ABSOLUTE_GROWTH_FLOOR)
              <= scaling.CPU_GROWTH_LIMIT for s in (1, 2, 4)]
    return (long - small) / row["yardstick"], growth, growth <= scaling.CPU_GROWTH_LIMIT, before


def show(rows: list[dict]) -> None:
    sizes = [key(n, c) for n, c in SIZES]
    print(f"{'variant':<52}" + "".join(f"{s:>7}" for s in sizes)
          + f"{'yardst.':>8}  {'extra/yardstick':>15}  {'growth':>11}  passes  abs.floor x1 x2 x4  capped (limit "
            f"{scaling.CPU_CAP_YARDSTICKS})")
    for module, label in dict.fromkeys((r["module"], r["label"]) for r in rows):
        mine = [r for r in rows if (r["module"], r["label"]) == (module, label)]
        cells = ""
        for s in sizes:
            values = [r[s] for r in mine if isinstance(r.get(s), float)]
            cells += f"{statistics.median(values):7.3f}" if len(values) == len(mine) else f"{'fails':>7}"
        judged = [v for v in map(verdicts, mine) if v is not None]
        yard = statistics.median(r["yardstick"] for r in mine)
        line = f"{module[:6] + ' ' + label[:45]:<52}{cells}{yard:8.4f}"
        if judged:
            extra, growth = [v[0] for v in judged], [v[1] for v in judged]
            before = " ".join(f"{sum(v[3][i] for v in judged)}/{len(judged)}" for i in range(3))
            line += (f"  {min(extra):6.1f} - {max(extra):6.1f}  {min(growth):4.1f} - {max(growth):4.1f}"
                     f"  {sum(v[2] for v in judged)}/{len(judged)}    {before}")
        capped = [r[key(scaling.CAPPED_N, False)] / (r["yardstick"] * scaling.CAPPED_N / scaling.LONG_N) for r in mine
                  if isinstance(r.get(key(scaling.CAPPED_N, False)), float)]
        if capped:
            line += f"  {min(capped):5.1f} - {max(capped):5.1f} yardsticks"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="", help="only the variants whose label holds this")
    parser.add_argument("--sizes", help="tokens, comma-separated, 'c' after one counted in torch (default: the check's, "
                                        "256c,1024c,8192,16384: the first three judged by growth)")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    args = parser.parse_args()
    if args.sizes:
        SIZES[:] = [(int(s.rstrip("c")), s.endswith("c")) for s in args.sizes.split(",")]
    rows = measure(args.runs, args.only)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    show(rows)


if __name__ == "__main__":
    main()
