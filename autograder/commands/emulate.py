"""``emulate``: grade a submission in an emulated Gradescope container and report its cost."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import textwrap
from pathlib import Path

from ..gradescope import build, emulate, layout
from ..model import manifest, paths
from ..reports.score_table import problem_totals

NAME = "emulate"
HELP = "grade a submission the way Gradescope runs the zip (root, /autograder, its CPU and memory)"
DESCRIPTION = (
    "Lay out /autograder, run the zip's run_autograder as root in a cgroup capped like Gradescope's container "
    "(the manifest's settings), kill what is left, and print the scores, the wall time and the peak memory."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "submission", nargs="?", default=str(paths.REFERENCE), help="a folder or .zip (default: the reference)"
    )
    parser.add_argument("--zip", help="the autograder zip (default: build a fresh one)")
    parser.add_argument(
        "--no-namespaces", action="store_true", help="refuse bubblewrap to the sandbox, as many containers do"
    )
    parser.add_argument("--no-limits", action="store_true", help="no cgroup: no CPU or memory caps")
    parser.add_argument("--results", default=str(paths.ROOT / "dist" / "emulated" / "results.json"), metavar="JSON",
                        help="where to keep the run's results.json (default: dist/emulated/results.json)")


def run(args: argparse.Namespace) -> int:
    for given, what, fix in ((args.zip, "--zip", "build one with `python -m autograder build`, or leave --zip out"),
                             (args.submission, "the submission", "pass a folder or a .zip of module files")):
        if given is not None and not Path(given).exists():
            print(f"error: {what} {given} does not exist; {fix}", file=sys.stderr)
            return 2
    assignment = manifest.load()
    print(assignment.gradescope.describe())
    with tempfile.TemporaryDirectory(prefix="autograder-gradescope-") as tmp:
        zip_path = Path(args.zip) if args.zip else build.build_autograder_zip(Path(tmp) / "autograder.zip")
        try:
            outcome = emulate.emulate(
                zip_path, Path(args.submission), namespaces=not args.no_namespaces, limits=not args.no_limits
            )
        except layout.LayoutError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    print(report(outcome, assignment.modules))
    if outcome.results is not None:
        print(keep_results(outcome.results, Path(args.results)))
    return 0 if outcome.results is not None else 1


def keep_results(results: dict, target: Path) -> str:
    """Write the run's results.json where staff can read it after the emulated container is gone; say where (or why
    not)."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(results, indent=1), encoding="utf-8")
    except OSError as exc:
        return (f"results.json not kept: could not write {target}: {exc.strerror or exc}; pass --results with a "
                "writable path")
    return f"results.json kept at {target}"


def lost_points(results: dict) -> list[str]:
    """One block per test that lost points: its name, score and what the student reads, whole, indented under it."""
    lines = []
    for test in results.get("tests", []):
        score, top = float(test.get("score") or 0), float(test.get("max_score") or 0)
        if score < top:
            lines.append(f"  lost {top - score:g}: {test.get('name', '?')}")
            said = [
                line.rstrip()
                for line in str(test.get("output", "")).splitlines()
                if line.strip()
                and "Test case passed" not in line
                and not line.rstrip().endswith(("result:", "results:"))
            ]
            lines.append(textwrap.indent(textwrap.dedent("\n".join(said)), "      "))
    return lines


def report(outcome: emulate.Run, modules: list[str]) -> str:
    """The scores, what the run cost, and what was not emulated."""
    lines = []
    caps = f"{outcome.caps.cpus:g} CPU, {outcome.caps.memory_mb} MB" if outcome.caps else "no caps"
    lines.append(f"emulated container: {caps}; namespaces {'allowed' if outcome.namespaces else 'refused'}")
    lines += [f"  {line}" for line in outcome.staff_notes]
    if outcome.results is None:
        why = "the overall timeout was reached" if outcome.timed_out else "no valid results.json was written"
        lines.append(f"NO RESULTS: {why} (Gradescope would give 0 and show the student nothing)")
        lines.append("last output of run_autograder:\n" + outcome.stdout[-3000:])
    else:
        width = max(len(m) for m in modules)
        for module, (score, top) in problem_totals(outcome.results, modules).items():
            lines.append(f"{module:<{width}}  {score:6g} / {top:g}")
        lines.append(f"{'TOTAL':<{width}}  {float(outcome.results.get('score', 0)):6g}")
        lines += lost_points(outcome.results)
        lines.append(
            f"calls stopped at their time limit: {outcome.stopped_calls}; calls not run (time rules): "
            f"{outcome.calls_not_run}"
        )
    peak = f"{outcome.peak_memory_mb:.0f} MB" if outcome.peak_memory_mb is not None else "unknown"
    cpu = f"{outcome.cpu_seconds:.1f} s" if outcome.cpu_seconds is not None else "unknown"
    if outcome.throttled_periods is not None:
        cpu += f" (the quota held it back in {outcome.throttled_periods} periods of 0.1 s)"
    lines.append(f"wall time {outcome.wall_seconds:.1f} s; peak memory {peak}; CPU time {cpu}; "
                 f"OOM kills {outcome.oom_kills if outcome.oom_kills is not None else 'unknown'}; "
                 f"processes left at the end and killed: {outcome.leftovers_killed}")
    lines += ["not emulated:"] + [f"  - {item}" for item in outcome.not_emulated]
    return "\n".join(lines)
