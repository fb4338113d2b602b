"""Every fair variant, graded in the emulated Gradescope container (root, /autograder, 0.5 CPU, 768 MB).

Submission k holds, for each problem, its k-th fair variant (the reference where a problem has fewer),
so every fair variant runs once in as many emulated runs as the largest problem has variants. Each
problem of each run must keep full marks: a fair variant that would lose points on Gradescope (memory,
time) shows here. Also prints the reference's wall time and peak memory, the room the worker gets and
the zip's size.

Run (as root): .venv/bin/python bench/bench_fair_in_container.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import build, manifest, paths, solutions, worker_memory  # noqa: E402
from autograder.gradescope import emulation, layout  # noqa: E402
from autograder.tools.score_table import problem_totals  # noqa: E402


def fair_submissions(tmp: Path) -> list[tuple[Path, dict[str, str]]]:
    """(folder, module -> which variant it holds) for each emulated run."""
    assignment = manifest.load()
    fair = {m: solutions.fair_alternatives(m) for m in assignment.modules}
    runs = []
    for k in range(max(len(v) for v in fair.values())):
        folder = tmp / f"fair_{k}"
        folder.mkdir()
        held = {}
        for module in assignment.modules:
            variant = fair[module][k] if k < len(fair[module]) else None
            source = variant.source() if variant else solutions.reference_path(module).read_text(encoding="utf-8")
            (folder / f"{module}.py").write_text(source, encoding="utf-8")
            held[module] = f"fair:{variant.name}" if variant else "reference"
        runs.append((folder, held))
    return runs


def describe(run: emulation.Run) -> str:
    peak = f"{run.peak_memory_mb:.0f} MB" if run.peak_memory_mb is not None else "unknown"
    return f"wall {run.wall_seconds:.1f} s; peak memory {peak}; CPU {run.cpu_seconds or 0:.1f} s; OOM kills {run.oom_kills}"


def main() -> int:
    assignment = manifest.load()
    print(assignment.gradescope.describe())
    room = worker_memory.gradescope_room(assignment)
    print(f"student's room: {room.mb} MB ({room.reason})")
    zip_path = build.build_autograder_zip(ROOT / "dist" / "autograder.zip")
    print(f"zip: {zip_path.stat().st_size / 2**20:.1f} MB")
    misses = 0
    with tempfile.TemporaryDirectory() as tmp:
        try:
            reference = emulation.emulate(zip_path, paths.REFERENCE)
        except layout.LayoutError as exc:
            print(f"skipped: {exc}")
            return 0
        score = reference.results.get("score") if reference.results else None
        print(f"\n== reference: score {score}; {describe(reference)}")
        misses += score != assignment.total_points
        for folder, held in fair_submissions(Path(tmp)):
            run = emulation.emulate(zip_path, folder)
            totals = problem_totals(run.results, assignment.modules) if run.results else {}
            print(f"\n== {folder.name}: {describe(run)}")
            for module in assignment.modules:
                got, top = totals.get(module, (0.0, assignment.problem(module).points))
                ok = abs(got - top) < 1e-9
                misses += not ok
                print(f"   {'OK  ' if ok else 'MISS'} {module:<25} {held[module]:<40} {got:g}/{top:g}")
    print(f"\n{'every fair variant full in the container' if not misses else f'{misses} MISS(es)'}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
