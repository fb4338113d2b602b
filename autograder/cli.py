"""``python -m autograder``: check, grade, build, grade-all, validate, templates."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from . import paths


class StaffOnly(Exception):
    """A staff command run from the students' handout, which leaves the staff modules out."""


def _staff(name: str):
    """Import a staff-only module of this package."""
    try:
        return importlib.import_module(f"{__package__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__package__}.{name}":
            raise StaffOnly(name) from None
        raise


def _cmd_check(args: argparse.Namespace) -> int:
    from . import grading, manifest
    from .reports import terminal

    folder = Path(args.dir) if args.dir else paths.TEMPLATES
    if not folder.exists():
        print(f"error: {folder} does not exist; pass the folder holding your six .py files, e.g. python -m autograder check my_solutions/", file=sys.stderr)
        return 2
    assignment = manifest.load()
    modules = args.problem or None
    unknown = [m for m in modules or [] if m not in assignment.modules]
    if unknown:
        print(f"error: unknown problem {unknown[0]!r}; choose from {', '.join(assignment.modules)}", file=sys.stderr)
        return 2
    report = grading.grade(folder, assignment, include_hidden=False, modules=modules)
    print(terminal.render(report, title=f"Public tests on {folder}"))
    return 0 if report.all_passed else 1


def _cmd_grade(args: argparse.Namespace) -> int:
    from . import grading, manifest
    from .reports import gradescope, terminal
    from .sandbox import policy
    from .scores import GradeReport

    out = Path(args.out)
    print(policy.detect().describe(), file=sys.stderr)  # staff should know what the worker runs under
    try:
        report = grading.grade(Path(args.submission), manifest.load())
    except Exception as exc:  # noqa: BLE001 - results.json must be written whatever happens
        report = GradeReport(args.submission, [], [f"The autograder could not grade this submission: {type(exc).__name__}: {exc}"])
        gradescope.write(report, out)
        print(f"error: {exc}", file=sys.stderr)
        return 0
    gradescope.write(report, out)
    if not args.quiet:
        print(terminal.render(report, title=f"Grading {args.submission}"))
    print(f"wrote {out} (score {report.points:g}/{report.max_points:g})")
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    path = _staff("build").build_autograder_zip(Path(args.out))
    print(f"wrote {path}")
    return 0


def _cmd_templates(args: argparse.Namespace) -> int:
    from . import manifest, templating

    for path in templating.generate(manifest.load().modules):
        print(f"wrote {path.relative_to(paths.ROOT)}")
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from . import manifest

    validate_command = _staff("validate_command")
    assignment = manifest.load()
    unknown = [m for m in args.problem or [] if m not in assignment.modules]
    if unknown:
        print(f"error: unknown problem {unknown[0]!r}; choose from {', '.join(assignment.modules)}", file=sys.stderr)
        return 2
    return validate_command.run(assignment, args.problem or None, with_zip=args.with_zip)


def _cmd_grade_all(args: argparse.Namespace) -> int:
    batch = _staff("batch")
    folder = Path(args.dir)
    if not folder.is_dir():
        print(f"error: {folder} is not a folder of submissions", file=sys.stderr)
        return 2
    from .sandbox import policy

    print(policy.detect().describe(), file=sys.stderr)
    done = batch.grade_all(folder, Path(args.out), jobs=args.jobs, force=args.force)
    print(batch.write_summary(done))
    print(f"graded {len(done.graded)} now, {len(done.reports) - len(done.graded)} from earlier runs; wrote {args.out}")
    return 0


def _cmd_handout(args: argparse.Namespace) -> int:
    print(f"wrote {_staff('handout').build_handout(Path(args.out))}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder", description="Grade the attention homework.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("check", help="run the public tests on your six modules",
                       description="Run the public tests on the modules in DIR and print a table per problem. Exit 0 only if all pass.")
    p.add_argument("dir", nargs="?", metavar="DIR", help="folder with your .py files (default: student_template/)")
    p.add_argument("-p", "--problem", action="append", metavar="MODULE", help="check only this problem (repeatable)")
    p.set_defaults(run=_cmd_check)

    p = sub.add_parser("grade", help="run every test on a submission and write results.json",
                       description="Grade a submission (a folder or a .zip) with public and hidden tests; write Gradescope's results.json.")
    p.add_argument("submission", metavar="SUBMISSION", help="a folder or a .zip holding the six module files")
    p.add_argument("--out", default="results.json", help="where to write results.json (default: ./results.json)")
    p.add_argument("-q", "--quiet", action="store_true", help="do not print the table")
    p.set_defaults(run=_cmd_grade)

    p = sub.add_parser("build", help="build the Gradescope autograder zip with otter generate",
                       description="Build the Gradescope autograder zip (otter-grader format).")
    p.add_argument("--out", default="dist/autograder.zip", help="output path (default: dist/autograder.zip)")
    p.set_defaults(run=_cmd_build)

    p = sub.add_parser("templates", help="regenerate student_template/ from reference/",
                       description="Write the student stubs: the reference with solution blocks replaced by TODOs.")
    p.set_defaults(run=_cmd_templates)

    p = sub.add_parser("validate", help="staff: check every problem's tests grade reference, stubs, mistakes and fair variants right",
                       description="Reference full marks, stub zero, every mistake loses points (on its own problem only), every fair "
                                   "alternative full marks, templates in sync. One table per problem; exit 1 on any MISS.")
    p.add_argument("-p", "--problem", action="append", metavar="MODULE", help="validate only this problem (repeatable)")
    p.add_argument("--with-zip", action="store_true", help="also build the Gradescope zip in a temp folder and `otter run` the reference (slow)")
    p.set_defaults(run=_cmd_validate)

    p = sub.add_parser("grade-all", help="staff: grade every submission (folder or zip) in DIR into a CSV",
                       description="Grade every submission in DIR in parallel; write grades.csv, results/<name>.json, summary.txt and "
                                   "histogram.png beside it. A rerun grades only submissions not graded yet.")
    p.add_argument("dir", metavar="DIR", help="folder holding one folder or zip per submission")
    p.add_argument("--out", default="grades.csv", help="the CSV to write (default: ./grades.csv)")
    p.add_argument("-j", "--jobs", type=int, default=2, help="submissions graded at once (default: 2)")
    p.add_argument("--force", action="store_true", help="grade again submissions graded by an earlier run")
    p.set_defaults(run=_cmd_grade_all)

    p = sub.add_parser("handout", help="staff: build the students' handout zip",
                       description="Stubs, statements, public tests with recorded expected values and the self-check runner; no reference.")
    p.add_argument("--out", default="dist/handout.zip", help="output path (default: dist/handout.zip)")
    p.set_defaults(run=_cmd_handout)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    from .manifest import ManifestError

    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ManifestError as exc:
        print(f"error: manifest problem: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except StaffOnly:
        print(f"error: `{args.command}` is a staff command; the handout does not include it", file=sys.stderr)
        return 2
