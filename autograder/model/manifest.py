"""Read and validate the YAML manifests: the assignment and one per problem.

What is declared once: a test's points at its ``@test_case(points=...)`` (a problem's points and the assignment's total
are their sums, read from the test files without running them), a problem's module name by its folder, and what every
problem shares (the test-file lists, a call limit) under ``problem_defaults:`` in ``assignment.yaml``.
"""

from __future__ import annotations

import ast
import collections
import copy
import functools
import keyword
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..settings import WORKER_MEMORY_MB
from . import paths


class ManifestError(Exception):
    """A manifest is missing, unreadable, or has a key of the wrong kind."""

    label = "manifest problem"  # what the command line says before the message


CALLABLES_FILE = "callables.py"  # functions a problem's tests pass to the student by name (``Named("...")``)


@functools.cache
def callables_source(module: str) -> str | None:
    """The source of ``assignments/<module>/callables.py``, which the worker runs to build what a test names, if any."""
    path = paths.ASSIGNMENTS / module / CALLABLES_FILE
    return path.read_text(encoding="utf-8") if path.is_file() else None


@dataclass(frozen=True)
class Limits:
    """Per-call limit for one problem: seconds at Gradescope's CPU share (``grading.time_rules`` says how it is
    enforced)."""

    call_seconds: float


# Gradescope's values for a results.json entry's ``visibility``.
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


@dataclass(frozen=True)
class Visibility:
    """When a student sees each kind of results.json entry on Gradescope (``gradescope.visibility`` in
    assignment.yaml)."""

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
        return (f"Gradescope autograder settings: timeout {self.timeout_minutes:g} min, memory {self.memory_mb} MB, "
                f"CPU {self.cpus:g}")


@dataclass(frozen=True)
class Problem:
    """One problem folder: ``assignments/<module>/problem.yaml`` over the assignment's ``problem_defaults``."""

    module: str
    title: str
    points: float  # the sum of its tests' points (plus ``hidden_points`` in a handout, which ships no hidden tests)
    limits: Limits
    public_tests: tuple[Path, ...]
    hidden_tests: tuple[Path, ...]
    folder: Path

    def test_files(self, include_hidden: bool) -> list[tuple[Path, bool]]:
        """Test files in run order, each with whether it is hidden."""
        files = [(p, False) for p in self.public_tests]
        return files + [(p, True) for p in self.hidden_tests] if include_hidden else files

    @property
    def callables(self) -> Path | None:
        """The problem's ``callables.py`` (functions its tests pass by name), if it has one."""
        path = self.folder / CALLABLES_FILE
        return path if path.is_file() else None


@dataclass(frozen=True)
class Assignment:
    """The whole assignment: ``assignments/assignment.yaml`` and its problems in order."""

    name: str
    title: str
    python: str
    problems: tuple[Problem, ...]
    gradescope: GradescopeSettings
    worker_memory_mb: int  # the student's room where the machine sets no memory limit (a staff laptop, a student's own)

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
    def total_points(self) -> float:
        """The points of every test of every problem."""
        return sum(p.points for p in self.problems)


def safe_load(text: str) -> Any:
    """``yaml.safe_load``, with libyaml's parser where PyYAML has it (about 30 times faster, the same values); a
    document it refuses is parsed again by the Python parser, whose error names the line."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        try:
            return yaml.load(text, Loader=fast)  # noqa: S506 - CSafeLoader is the safe loader
        except yaml.YAMLError:
            pass
    return yaml.safe_load(text)


def _read(path: Path) -> dict:
    try:
        info = path.stat()
    except OSError:
        info = None
    if info is None or not stat.S_ISREG(info.st_mode):
        raise ManifestError(f"{path}: file not found")
    return copy.deepcopy(_read_version(str(path), info.st_mtime_ns, info.st_size, info.st_ino))


@functools.lru_cache(maxsize=64)
def _read_version(path_text: str, _mtime_ns: int, _size: int, _inode: int) -> dict:
    """``_read`` for one version of the file (a run reads the manifests many times; parsing YAML is the cost)."""
    path = Path(path_text)
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


def merged(defaults: dict, own: dict) -> dict:
    """``own`` over ``defaults``: mappings merge key by key, anything else in ``own`` replaces the default."""
    combined = dict(defaults)
    for key, value in own.items():
        combined[key] = (
            merged(combined[key], value) if isinstance(value, dict) and isinstance(combined.get(key), dict) else value
        )
    return combined


# Keys an older manifest declared that are now derived or gone, and where the fact lives instead.
_RETIRED = {
    "module": "the module name is the folder's name",
    "points": "a problem's points are the sum of its tests' @test_case(points=...)",
    "limits.memory_mb": "one worker serves every problem, so its memory is the assignment's: 'worker_memory_mb' in "
                        "assignment.yaml (the container's room wins on Gradescope)",
}


def _refuse_retired(data: dict, path: Path, retired: dict[str, str]) -> None:
    for key, instead in retired.items():
        node: Any = data
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            raise ManifestError(f"{path}: remove key '{key}': {instead}")


def _is_test_case(decorator: ast.expr) -> bool:
    func = decorator.func if isinstance(decorator, ast.Call) else None
    return (
        isinstance(func, ast.Name)
        and func.id == "test_case"
        or isinstance(func, ast.Attribute)
        and func.attr == "test_case"
    )


def points_in(path: Path) -> float:
    """The points of the ``@test_case`` functions of a test file, read from its source without running it."""
    try:
        info = path.stat()
    except OSError as exc:
        raise ManifestError(f"{path}: cannot be read ({exc.strerror})") from None
    return _points_in(str(path), info.st_mtime_ns, info.st_size, info.st_ino)


@functools.lru_cache(maxsize=256)
def _points_in(path_text: str, _mtime_ns: int, _size: int, _inode: int) -> float:
    """``points_in`` for one version of the file (the manifest is read several times per run; parsing is the cost)."""
    path = Path(path_text)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except SyntaxError as exc:
        raise ManifestError(f"{path}: line {exc.lineno}: {exc.msg}") from None
    total = 0.0
    for node in _definitions(tree):
        for decorator in node.decorator_list:
            if not _is_test_case(decorator):
                continue
            given = [k.value for k in decorator.keywords if k.arg == "points"]
            if not given:
                raise ManifestError(f"{path}: line {decorator.lineno}: test {node.name} has no points=; give each "
                                    "@test_case its points, e.g. @test_case(points=1)")
            value = given[0]
            if not (isinstance(value, ast.Constant) and type(value.value) in (int, float) and value.value > 0):
                raise ManifestError(f"{path}: line {decorator.lineno}: test {node.name} should have a positive number "
                                    f"written out as its points= (the manifests add them up without running the file), "
                                    f"got {ast.unparse(value)}")
            total += float(value.value)
    return total


_STATEMENT_LISTS = ("body", "handlers", "orelse", "finalbody", "cases")  # in ``ast.walk``'s order of fields


def _definitions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """Every function and class definition of a module at any depth, in ``ast.walk``'s order. A definition is a
    statement, and statements sit only in the statement lists of other statements (and of except and case clauses),
    so no expression is visited: they are most of a test file's nodes."""
    found, todo = [], collections.deque(tree.body)
    while todo:
        node = todo.popleft()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(node)
        for name in _STATEMENT_LISTS:
            todo.extend(getattr(node, name, ()))
    return found


# Names a module students write may not take: where it is graded a module of that name is imported already (the
# standard library, the packages student code may use, the harness, pytest's conftest of the handout), so one of the
# two would hide the other.
TAKEN_NAMES = frozenset(sys.stdlib_module_names) | {"numpy", "torch", "autograder", "conftest"}


def module_name_problem(module: str) -> str | None:
    """Why ``module`` cannot name a problem (its folder, and the file students write), or None."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", module):
        return "it must be a Python identifier of lowercase ASCII letters, digits and '_', starting with a letter"
    if keyword.iskeyword(module):
        return "it is a Python keyword, which no import statement can name"
    if module in TAKEN_NAMES:
        return f"a module named {module} is imported already where the work is graded, and one would hide the other"
    return None


def load_problem(folder: Path, defaults: dict | None = None) -> Problem:
    """Read ``folder/problem.yaml`` over ``defaults`` (the assignment's ``problem_defaults``)."""
    path = folder / "problem.yaml"
    own = _read(path)
    _refuse_retired(own, path, _RETIRED)
    data = merged(defaults or {}, own)
    module = folder.name
    why = module_name_problem(module)
    if why is not None:
        raise ManifestError(f"{path}: the folder's name {module!r} is the module's name, and {why}")
    limits = Limits(
        call_seconds=_positive(
            float(_get(data, path, "limits.call_seconds", (int, float), "seconds per call")),
            path,
            "limits.call_seconds",
        )
    )
    public, hidden = _test_list(data, path, "tests.public"), _test_list(data, path, "tests.hidden")
    hidden_points = float(_get(data, path, "hidden_points", (int, float), "points")) if "hidden_points" in data else 0.0
    if hidden_points and hidden:
        raise ManifestError(f"{path}: key 'hidden_points' is written by the handout for a problem shipped without its "
                            "hidden tests; with hidden tests listed, their points are read from them: remove it")
    points = sum(points_in(p) for p in (*public, *hidden)) + hidden_points
    if points <= 0:
        raise ManifestError(f"{path}: the problem's tests carry no points; give each @test_case its points=")
    return Problem(
        module=module,
        title=_get(data, path, "title", str, "a title string"),
        points=points,
        limits=limits,
        public_tests=public,
        hidden_tests=hidden,
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
        raise ManifestError(
            f"{path}: key 'gradescope.grader_memory_mb' ({settings.grader_memory_mb}) leaves nothing of "
            f"'gradescope.memory_mb' ({settings.memory_mb}) for the student's code"
        )
    return settings


def _visibility(data: object, path: Path) -> Visibility:
    if data is None:
        return DEFAULT_VISIBILITY
    if not isinstance(data, dict):
        raise ManifestError(
            f"{path}: key 'gradescope.visibility' should be a mapping of public/hidden/output to one of "
            f"{', '.join(VISIBILITIES)}"
        )
    unknown = sorted(set(data) - {"public", "hidden", "output"})
    if unknown:
        raise ManifestError(
            f"{path}: key 'gradescope.visibility.{unknown[0]}' is not a setting; use public, hidden or output"
        )
    for key, value in data.items():
        if value not in VISIBILITIES:
            raise ManifestError(
                f"{path}: key 'gradescope.visibility.{key}' should be one of {', '.join(VISIBILITIES)}, got {value!r}"
            )
    return Visibility(**data)


def load(path: Path | None = None) -> Assignment:
    """Read the assignment manifest and every problem manifest it lists."""
    path = Path(path or paths.ASSIGNMENT_MANIFEST)
    data = _read(path)
    _refuse_retired(data, path, {"total_points": "the total is the sum of the problems' points, read from their tests"})
    modules = _get(data, path, "problems", list, "a list of problem module names in order")
    defaults = (
        _get(data, path, "problem_defaults", dict, "what every problem.yaml may leave out")
        if "problem_defaults" in data
        else {}
    )
    problems = []
    for module in modules:
        if not isinstance(module, str) or not (path.parent / module).is_dir():
            raise ManifestError(
                f"{path}: key 'problems' lists {module!r}, but there is no folder {path.parent / str(module)}"
            )
        if module in [p.module for p in problems]:
            raise ManifestError(f"{path}: key 'problems' lists {module!r} twice")
        problems.append(load_problem(path.parent / module, defaults))
    memory = data.get("worker_memory_mb", WORKER_MEMORY_MB)
    if not isinstance(memory, int) or isinstance(memory, bool) or memory <= 0:
        raise ManifestError(f"{path}: key 'worker_memory_mb' should be a positive number of MB, got {memory!r}")
    return Assignment(
        name=_get(data, path, "name", str, "a short assignment name"),
        title=_get(data, path, "title", str, "a title string"),
        python=str(_get(data, path, "python", (str, float), "a Python version such as '3.11'")),
        problems=tuple(problems),
        gradescope=_gradescope(data, path),
        worker_memory_mb=memory,
    )
