"""The Gradescope figures: submissions graded in the emulated container at the real limits, one run each.

Builds dist/autograder.zip and grades, as Gradescope would (root, /autograder, the manifest's CPU
and memory): the reference with namespaces allowed and refused; every function of every module
hanging (half busy loops, half sleeps); one module taking all the memory it may and one leaving 200
processes behind (namespaces allowed and refused). Reports score, wall time, peak memory, OOM
kills and calls stopped. Targets: reference 100; everything done well inside the 10-minute
timeout (under 5 minutes, half of it); abuse costs only its own problem.

Run (as root): .venv/bin/python bench/bench_gradescope.py [--only NAME]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.gradescope import build, emulate, layout, probes  # noqa: E402
from autograder.model import manifest, paths  # noqa: E402
from autograder.reports.score_table import problem_totals  # noqa: E402


def submissions(tmp: Path) -> dict[str, tuple[Path, bool]]:
    """Name -> (submission, namespaces allowed)."""
    modules = manifest.load().modules
    hanging = probes.submission(tmp / "hang", {m: probes.HANG if i % 2 else probes.SLEEP for i, m in enumerate(modules)})
    abuse = probes.submission(tmp / "abuse", {modules[0]: probes.HOG, modules[1]: probes.SPAWN})
    return {
        "reference, namespaces": (paths.REFERENCE, True),
        "reference, no namespaces": (paths.REFERENCE, False),
        "all six modules hanging, no namespaces": (hanging, False),
        f"memory hog ({modules[0]}) + 200 processes ({modules[1]}), namespaces": (abuse, True),
        f"memory hog ({modules[0]}) + 200 processes ({modules[1]}), no namespaces": (abuse, False),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="run only the submissions whose name contains this")
    args = parser.parse_args()
    assignment = manifest.load()
    print(assignment.gradescope.describe())
    with tempfile.TemporaryDirectory() as tmp:
        zip_path = build.build_autograder_zip(ROOT / "dist" / "autograder.zip")
        for name, (submission, namespaces) in submissions(Path(tmp)).items():
            if args.only and args.only not in name:
                continue
            try:
                run = emulate.emulate(zip_path, submission, namespaces=namespaces)
            except layout.LayoutError as exc:
                print(f"skipped: {exc}")
                return
            print(f"\n== {name}")
            if run.results is None:
                print(f"   NO RESULTS ({'timeout' if run.timed_out else 'no valid results.json'})")
            else:
                totals = problem_totals(run.results, assignment.modules)
                print(f"   score {run.results.get('score')}: " + ", ".join(f"{m} {s:g}/{t:g}" for m, (s, t) in totals.items()))
                print(f"   calls stopped at their limit: {run.stopped_calls}; calls not run (time rules): {run.calls_not_run}")
            peak = f"{run.peak_memory_mb:.0f} MB" if run.peak_memory_mb is not None else "unknown"
            print(f"   wall {run.wall_seconds:.1f} s ({run.wall_seconds / 60:.1f} min); peak memory {peak}; CPU {run.cpu_seconds or 0:.1f} s; "
                  f"OOM kills {run.oom_kills}; processes killed at the end {run.leftovers_killed}")
            for item in run.not_emulated[2:]:
                print(f"   not emulated: {item}")


if __name__ == "__main__":
    main()
