"""``config``: every environment variable and tunable (``autograder/settings.py``) with the value in force and why."""

from __future__ import annotations

import argparse
import importlib
import os
import textwrap

from .. import settings
from ..grading import time_rules
from ..model import manifest, paths

NAME = "config"
HELP = "staff: list every environment variable and tunable with the value in force and its reason"
DESCRIPTION = (
    "Every environment variable the harness reads and every tunable it uses (autograder/settings.py), the "
    "limits the worker applies inside the box, and what the assignment's manifests set, with the values in force."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No arguments."""


def _entry(head: str, where: str, reason: str) -> list[str]:
    return [f"  {head}   ({where})", *textwrap.wrap(reason, 110, initial_indent="      ", subsequent_indent="      ")]


def _environment() -> list[str]:
    lines = ["Environment variables (read where they are used):"]
    for s in settings.ALL:
        if s.env:
            now = os.environ.get(s.name)
            shown = (
                f"{s.name}={now}"
                if now is not None
                else f"{s.name} unset" + (f" (default {s.default})" if s.default else "")
            )
            lines += _entry(shown, s.where, s.reason)
    return lines


def _tunables() -> list[str]:
    lines = ["", "Tunables (autograder/settings.py):"]
    for s in settings.ALL:
        if not s.env:
            lines += _entry(f"{s.name} = {s.value()!r}", s.where, s.reason)
    return lines


def _worker_constants() -> list[str]:
    lines = [
        "",
        "Limits inside the box (constants of autograder/sandbox/worker/: the worker imports nothing of the grader's):",
    ]
    for module, name, reason in settings.WORKER_CONSTANTS:
        value = getattr(importlib.import_module(f"{__package__.split('.')[0]}.sandbox.worker.{module}"), name)
        lines += _entry(f"{module}.{name} = {value!r}", f"sandbox/worker/{module}.py", reason)
    return lines


def _assignment() -> list[str]:
    lines = ["", f"The assignment ({paths.ASSIGNMENT_MANIFEST}):"]
    try:
        assignment = manifest.load()
    except manifest.ManifestError as exc:
        return [*lines, f"  cannot be read: {exc}"]
    lines += [
        f"  {len(assignment.problems)} problems, {assignment.total_points:g} points (the sum of their tests' points)",
        f"  worker_memory_mb = {assignment.worker_memory_mb}   (the room where no container limit is found)",
        f"  {assignment.gradescope.describe()}; grader_memory_mb = {assignment.gradescope.grader_memory_mb}",
    ]
    for p in assignment.problems:
        lines.append(f"  {p.module}: {p.points:g} points, {p.limits.call_seconds:g} s per call, "
                     f"budget {time_rules.problem_budget(p):g} s, worst case {time_rules.problem_bound(p):g} s")
    worst, deadline = time_rules.time_bound(assignment), time_rules.deadline_seconds(assignment)
    lines.append(
        f"  worst case of a submission: {worst:g} s + {settings.GRADER_SECONDS:g} s for the grader's own work, "
        f"deadline {deadline:g} s; room for one more problem: "
        + (
            f"a call limit of {time_rules.room_for_a_problem(assignment):g} s"
            if time_rules.room_for_a_problem(assignment) > 0
            else "none"
        )
    )
    problem = time_rules.bound_problem(assignment)
    return lines + ([f"  {problem}"] if problem else [])


def run(args: argparse.Namespace) -> int:
    print("\n".join(_environment() + _tunables() + _worker_constants() + _assignment()))
    return 0
