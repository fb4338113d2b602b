"""The least a grading run can take with a fresh process per test: the worker's start, then ``--tests`` bare test cycles
(the module's import in a fresh process, one trivial call, the reset and the grader's checks after it), and nothing else:
no test inputs, no checking, no student compute. ``bench_speed.py`` times it as a whole process beside `grade` (every
test) and `check` (the public tests), so the share of each that the per-test process costs is measured, not argued.

Run: .venv/bin/python bench/floor_of_a_run.py --tests 105
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import settings  # noqa: E402

settings.one_blas_thread()  # as every door that starts a grading process does, before numpy loads

from autograder.sandbox.session import WorkerSession  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", type=int, required=True)
    args = parser.parse_args()
    session = WorkerSession(memory_mb=1024, start_now=True)
    try:
        session.switch(session.stage({"shift_matrix": (ROOT / "reference" / "shift_matrix.py").read_bytes()}))
        for _ in range(args.tests):
            session.call("shift_matrix", "shift_matrix", (2,), {}, 30, "shift_matrix(2)")
            session.fresh("shift_matrix")
    finally:
        session.close()


if __name__ == "__main__":
    main()
