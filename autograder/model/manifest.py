"""Read and validate the YAML manifests: the assignment and one per problem."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from . import paths


class ManifestError(Exception):
    """A manifest is missing, unreadable, or has a key of the wrong kind."""


@dataclass(frozen=True)
class Limits:
    """Per-call wall clock and per-worker memory for one problem."""

    call_seconds: float
    memory_mb: int  # address space student code may add to the worker's own, beyond its imports


# Gradescope's values for a results.json entry's ``visibility``.
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


@dataclass(frozen=True)
class Visibility:
    """When a student sees each kind of results.json entry on Gradescope (``gradescope.visibility`` in assignment.yaml)."""

    public: str = "visible"  # the public tests: at once, as ``check`` shows them before submitting
    hidden: str = "after_published"  # the hidden tests' names, scores and messages: once grades are published
    output: str = "after_published"  # what the student's code printed (hidden tests' inputs can be printed)


DEFAULT_VISIBILITY = Visibility()


@dataclass(frozen=True)
class GradescopeSettings:
    """The autograder settings the zip needs on Gradescope, and the memory the grader keeps for itself."""

    timeout_minutes: float
    cpus: float
    memory_mb: int  # the container's memory: assumed when the container's own limit cannot be read
    grader_memory_mb: int  # the grader at its peak: not given to the worker
    visibility: Visibility = DEFAULT_VISIBILITY

    def describe(self) -> str:
        """One line for staff: what to set under the assignment's autograder settings."""
        return f"Gradescope autograder settings: timeout {self.timeout_minutes:g} min, memory {self.memory_mb} MB, CPU {self.cpus:g}"


@dataclass(frozen=True)
class Problem:
    """One problem folder: ``assignments/<module>/problem.yaml``."""

    module: str
    title: str
    points: float
    limits: Limits
    public_tests: tuple[Path, ...]
    hidden_tests: tuple[Path, ...]
    folder: Path

    def test_files(self, include_hidden: bool) -> list[tuple[Path, bool]]:
        """Test files in run order, each with whether it is hidden."""
        files = [(p, False) for p in self.public_tests]
        return files + [(p, True) for p in self.hidden_tests] if include_hidden else files


@dataclass(frozen=True)
class Assignment:
    """The whole assignment: ``assignments/assignment.yaml`` and its problems in order."""

    name: str
    title: str
    python: str
    total_points: float
    problems: tuple[Problem, ...]
    gradescope: GradescopeSettings

    def problem(self, module: str) -> Problem:
        """The problem whose module is ``module``."""
        for p in self.problems:
            if p.module == module:
                return p
        raise KeyError(module)

    @property
    def modules(self) -> list[str]:
        """Module names in handout order."""
        return [p.module for p in self.problems]

    @property
    def max_memory_mb(self) -> int:
        """The memory limit a worker serving every problem needs."""
        return max(p.limits.memory_mb for p in self.problems)


def safe_load(text: str) -> Any:
    """``yaml.safe_load``, with libyaml's parser where PyYAML has it (about 30 times faster, the same values); a document
    it refuses is parsed again by the Python parser, whose error names the line."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return yaml.load(text, Loader=fast)  # noqa: S506 - CSafeLoader is the safe loader
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)


def _read(path: Path) -> dict:
    if not path.is_file():
        raise ManifestError(f"{path}: file not found")
    try:
        data = safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ManifestError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: expected a mapping of keys at the top level, got {type(data).__name__}")
    return data


def _get(data: dict, path: Path, key: str, kind: type | tuple, what: str) -> Any:
    """``data[key]`` (dots walk into mappings), or a ManifestError naming file, key and expectation."""
    node: Any = data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ManifestError(f"{path}: missing key '{key}' (expected {what})")
        node = node[part]
    if not isinstance(node, kind) or isinstance(node, bool) and kind is not bool:
        raise ManifestError(f"{path}: key '{key}' should be {what}, got {node!r}")
    return node


def _positive(value: float, path: Path, key: str) -> float:
    if value <= 0:
        raise ManifestError(f"{path}: key '{key}' should be a positive number, got {value!r}")
    return value


def _test_list(data: dict, path: Path, key: str) -> tuple[Path, ...]:
    items = _get(data, path, key, list, "a list of test file paths relative to the problem folder")
    files = []
    for item in items:
        if not isinstance(item, str):
            raise ManifestError(f"{path}: key '{key}' should list file paths, got {item!r}")
        file = (path.parent / item).resolve()
        if not file.is_file():
            raise ManifestError(f"{path}: key '{key}' names {item}, which does not exist")
        files.append(file)
    return tuple(files)


def load_problem(folder: Path) -> Problem:
    """Read ``folder/problem.yaml``."""
    path = folder / "problem.yaml"
    data = _read(path)
    module = _get(data, path, "module", str, "the module name, e.g. qkv_arithmetic")
    if module != folder.name:
        raise ManifestError(f"{path}: key 'module' is {module!r} but the folder is {folder.name!r}; they must match")
    limits = Limits(
        call_seconds=_positive(float(_get(data, path, "limits.call_seconds", (int, float), "seconds per call")), path, "limits.call_seconds"),
        memory_mb=int(_positive(_get(data, path, "limits.memory_mb", int, "megabytes for the worker"), path, "limits.memory_mb")),
    )
    return Problem(
        module=module,
        title=_get(data, path, "title", str, "a title string"),
        points=_positive(float(_get(data, path, "points", (int, float), "a number of points")), path, "points"),
        limits=limits,
        public_tests=_test_list(data, path, "tests.public"),
        hidden_tests=_test_list(data, path, "tests.hidden"),
        folder=folder,
    )


# Gradescope's documented defaults, for a manifest without a ``gradescope:`` section; the grader's share is measured.
GRADESCOPE_DEFAULTS = {"timeout_minutes": 10, "cpus": 0.5, "memory_mb": 768, "grader_memory_mb": 368}


def _gradescope(data: dict, path: Path) -> GradescopeSettings:
    data = {"gradescope": dict(GRADESCOPE_DEFAULTS, **(data.get("gradescope") or {}))}

    def number(key: str, what: str) -> float:
        return _positive(float(_get(data, path, f"gradescope.{key}", (int, float), what)), path, f"gradescope.{key}")

    settings = GradescopeSettings(
        timeout_minutes=number("timeout_minutes", "the overall timeout in minutes"),
        cpus=number("cpus", "the CPU allocation, e.g. 0.5"),
        memory_mb=int(number("memory_mb", "the container's memory in MB")),
        grader_memory_mb=int(number("grader_memory_mb", "the memory the grader needs, in MB")),
        visibility=_visibility(data["gradescope"].get("visibility"), path),
    )
    if settings.grader_memory_mb >= settings.memory_mb:
        raise ManifestError(f"{path}: key 'gradescope.grader_memory_mb' ({settings.grader_memory_mb}) leaves nothing of "
                            f"'gradescope.memory_mb' ({settings.memory_mb}) for the student's code")
    return settings


def _visibility(data: object, path: Path) -> Visibility:
    if data is None:
        return DEFAULT_VISIBILITY
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: key 'gradescope.visibility' should be a mapping of public/hidden/output to one of {', '.join(VISIBILITIES)}")
    unknown = sorted(set(data) - {"public", "hidden", "output"})
    if unknown:
        raise ManifestError(f"{path}: key 'gradescope.visibility.{unknown[0]}' is not a setting; use public, hidden or output")
    for key, value in data.items():
        if value not in VISIBILITIES:
            raise ManifestError(f"{path}: key 'gradescope.visibility.{key}' should be one of {', '.join(VISIBILITIES)}, got {value!r}")
    return Visibility(**data)


def load(path: Path | None = None) -> Assignment:
    """Read the assignment manifest and every problem manifest it lists."""
    path = Path(path or paths.ASSIGNMENT_MANIFEST)
    data = _read(path)
    modules = _get(data, path, "problems", list, "a list of problem module names in order")
    problems = []
    for module in modules:
        if not isinstance(module, str) or not (path.parent / module).is_dir():
            raise ManifestError(f"{path}: key 'problems' lists {module!r}, but there is no folder {path.parent / str(module)}")
        problems.append(load_problem(path.parent / module))
    total_points = float(_get(data, path, "total_points", (int, float), "the total number of points"))
    total = sum(p.points for p in problems)
    if abs(total - total_points) > 1e-9:
        raise ManifestError(f"{path}: key 'total_points' is {total_points:g} but the problems add up to {total:g}")
    return Assignment(
        name=_get(data, path, "name", str, "a short assignment name"),
        title=_get(data, path, "title", str, "a title string"),
        python=str(_get(data, path, "python", (str, float), "a Python version such as '3.11'")),
        total_points=total_points,
        problems=tuple(problems),
        gradescope=_gradescope(data, path),
    )
