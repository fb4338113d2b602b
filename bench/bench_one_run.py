"""Every known mistake file graded by `grade`'s run and by the zip's entry point: every results.json entry must be the same.

One combined submission per mistake index (the k-th mistake of every problem that has one, the reference elsewhere),
each graded by the zip's entry point in a temporary folder laid out as Gradescope lays out /autograder (the command
`run_autograder` execs, without the cgroup) and, at the same time, by `grade`'s run in this process. Prints one line
per submission and exits 1 when any entry differs (name, score, max_score, status, output, visibility).
tests/gradescope/test_entry.py does this for the first and last mistakes in `make test`.

Run: .venv/bin/python bench/bench_one_run.py [--first K] [--count N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.gradescope import build, entry, layout  # noqa: E402
from autograder.grading import grader  # noqa: E402
from autograder.model import manifest  # noqa: E402
from autograder.reports import results_json  # noqa: E402
from autograder.staff import solutions  # noqa: E402


def combined(folder: Path, index: int) -> list[str]:
    """Write the ``index``-th mistake of every problem that has one (the reference elsewhere); return their names."""
    folder.mkdir(parents=True)
    names = []
    for module in manifest.load().modules:
        mistakes = solutions.mistakes(module)
        if index < len(mistakes):
            source = mistakes[index].source()
            names.append(f"{module}:{mistakes[index].name}")
        else:
            source = solutions.reference_path(module).read_text(encoding="utf-8")
        (folder / f"{module}.py").write_text(source, encoding="utf-8")
    return names


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--first", type=int, default=0, help="the first mistake index (default 0)")
    parser.add_argument("--count", type=int, default=None, help="how many indices (default: all)")
    args = parser.parse_args()
    assignment = manifest.load()
    most = max(len(solutions.mistakes(m)) for m in assignment.modules)
    last = most if args.count is None else min(most, args.first + args.count)
    differing = 0
    with tempfile.TemporaryDirectory(prefix="bench-one-run-") as tmp:
        tmp = Path(tmp)
        zip_path = build.build_autograder_zip(tmp / "autograder.zip")
        for index in range(args.first, last):
            sub = tmp / f"sub{index}"
            names = combined(sub, index)
            root = tmp / f"root{index}"
            root.mkdir()
            layout.lay_out(root, zip_path, sub)
            start = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-I", str(root / "source" / entry.ENTRY_SCRIPT)], cwd=root,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            ours = results_json.to_results(grader.grade(sub, assignment, grader.Purpose.GRADING), assignment.gradescope.visibility)
            proc.wait()
            zipped = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
            diff = [a["name"] for a, b in zip(zipped["tests"], ours["tests"]) if a != b]
            diff += ["(entry count)"] if len(zipped["tests"]) != len(ours["tests"]) else []
            differing += bool(diff) or zipped["score"] != ours["score"]
            print(f"mistakes #{index:<3} {len(names)} files  score {ours['score']:6g}  {len(ours['tests'])} entries  "
                  f"{'SAME' if not diff else 'DIFFER: ' + ', '.join(diff[:5])}  ({time.perf_counter() - start:.1f} s)", flush=True)
    print(f"\n{differing} submission(s) with an entry that differs")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
