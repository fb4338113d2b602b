"""Every fair variant (and with --mistakes every known mistake) graded in the emulated Gradescope container.

Submission k holds, for each problem, its k-th fair variant (the reference where a problem has fewer),
so every fair variant runs once in as many emulated runs as the largest problem has variants. Each
problem of each run must keep full marks: a fair variant that would lose points on Gradescope (memory,
time) shows here. With --mistakes, the same for the known mistakes, each of which must lose points on
its problem (40 runs, about 10 minutes). Also prints the reference's wall time and peak memory, the room
the worker gets and the zip's size.

Run (as root): .venv/bin/python bench/bench_fair_in_container.py [--mistakes]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.gradescope import build, emulate, layout  # noqa: E402
from autograder.grading import worker_memory  # noqa: E402
from autograder.model import manifest, paths  # noqa: E402
from autograder.reports.score_table import problem_totals  # noqa: E402
from autograder.staff import solutions  # noqa: E402


def variant_submissions(tmp: Path, kind: str) -> list[tuple[Path, dict[str, str]]]:
    """(folder, module -> which variant it holds) for each emulated run; ``kind`` is "fair" or "mistake"."""
    assignment = manifest.load()
    found = {m: (solutions.fair_alternatives if kind == "fair" else solutions.mistakes)(m) for m in assignment.modules}
    runs = []
    for k in range(max(len(v) for v in found.values())):
        folder = tmp / f"{kind}_{k}"
        folder.mkdir()
        held = {}
        for module in assignment.modules:
            variant = found[module][k] if k < len(found[module]) else None
            source = variant.source() if variant else solutions.reference_path(module).read_text(encoding="utf-8")
            (folder / f"{module}.py").write_text(source, encoding="utf-8")
            held[module] = f"{kind}:{variant.name}" if variant else "reference"
        runs.append((folder, held))
    return runs


def describe(run: emulate.Run) -> str:
    peak = f"{run.peak_memory_mb:.0f} MB" if run.peak_memory_mb is not None else "unknown"
    return f"wall {run.wall_seconds:.1f} s; peak memory {peak}; CPU {run.cpu_seconds or 0:.1f} s; OOM kills {run.oom_kills}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mistakes", action="store_true", help="also every known mistake (each must lose points on its problem)")
    args = parser.parse_args()
    assignment = manifest.load()
    print(assignment.gradescope.describe())
    room = worker_memory.gradescope_room(assignment)
    print(f"student's room: {room.mb} MB ({room.reason})")
    zip_path = build.build_autograder_zip(ROOT / "dist" / "autograder.zip")
    print(f"zip: {zip_path.stat().st_size / 2**20:.1f} MB")
    misses = 0
    with tempfile.TemporaryDirectory() as tmp:
        try:
            reference = emulate.emulate(zip_path, paths.REFERENCE)
        except layout.LayoutError as exc:
            print(f"skipped: {exc}")
            return 0
        score = reference.results.get("score") if reference.results else None
        print(f"\n== reference: score {score}; {describe(reference)}")
        misses += score != assignment.total_points
        runs = variant_submissions(Path(tmp), "fair") + (variant_submissions(Path(tmp), "mistake") if args.mistakes else [])
        for folder, held in runs:
            run = emulate.emulate(zip_path, folder)
            totals = problem_totals(run.results, assignment.modules) if run.results else {}
            print(f"\n== {folder.name}: {describe(run)}")
            for module in assignment.modules:
                got, top = totals.get(module, (0.0, assignment.problem(module).points))
                full = abs(got - top) < 1e-9
                ok = not full if held[module].startswith("mistake:") else full
                misses += not ok
                print(f"   {'OK  ' if ok else 'MISS'} {module:<25} {held[module]:<40} {got:g}/{top:g}")
    print(f"\n{'every fair variant full in the container' + (', every mistake losing points' if args.mistakes else '') if not misses else f'{misses} MISS(es)'}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
