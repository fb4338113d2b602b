"""The hostile corpus (tests/hostile/modules) graded in the emulated Gradescope container, namespaces allowed and refused.

Each case is the reference with one hostile module appended to ``qkv_arithmetic.py`` (as
tests/hostile/test_hostile.py builds them). For every case and mode it reports whether a valid results.json
came back, the host's score, whether every other problem kept full marks, the wall time and the peak
memory. tests/hostile/test_hostile.py checks the details (messages, files, processes) without the container;
this checks that the container (0.5 CPU, 768 MB, the zip's own entry point) holds too. About 20 s a run.

Run (as root): .venv/bin/python bench/bench_hostile_emulated.py [--only SUBSTRING]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.gradescope import build, emulate, layout, results_format  # noqa: E402
from autograder.model import manifest, paths  # noqa: E402
from autograder.reports.score_table import problem_totals  # noqa: E402

HOST = "qkv_arithmetic"
CORPUS = ROOT / "tests" / "hostile" / "modules"


def hostile_submission(folder: Path, case: Path) -> Path:
    folder.mkdir(parents=True)
    for source in paths.REFERENCE.glob("*.py"):
        text = source.read_text()
        (folder / source.name).write_text(text + "\n\n" + case.read_text() if source.stem == HOST else text)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="run only the cases whose name contains this")
    args = parser.parse_args()
    assignment = manifest.load()
    others = [m for m in assignment.modules if m != HOST]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        zip_path = build.build_autograder_zip(Path(tmp) / "autograder.zip")
        print(f"{'case':<28} {'namespaces':<11} {'valid':<6} {'host':>6} {'others full':<12} {'wall s':>7} {'peak MB':>8}")
        for case in sorted(CORPUS.glob("*.py")):
            if args.only and args.only not in case.stem:
                continue
            submission = hostile_submission(Path(tmp) / case.stem, case)
            for namespaces in (True, False):
                try:
                    run = emulate.emulate(zip_path, submission, namespaces=namespaces)
                except layout.LayoutError as exc:
                    raise SystemExit(f"skipped: {exc}") from None
                valid = run.results is not None and not results_format.problems(run.results)
                totals = problem_totals(run.results, assignment.modules) if run.results else {}
                full = bool(totals) and all(totals[m][0] == totals[m][1] for m in others)
                failures += not (valid and full)
                host = f"{totals[HOST][0]:g}" if totals else "-"
                peak = f"{run.peak_memory_mb:.0f}" if run.peak_memory_mb is not None else "?"
                print(f"{case.stem:<28} {'allowed' if namespaces else 'refused':<11} {str(valid):<6} {host:>6} {str(full):<12} "
                      f"{run.wall_seconds:7.1f} {peak:>8}", flush=True)
    print(f"\n{failures} run(s) without a valid results.json or with another problem losing points")


if __name__ == "__main__":
    main()
