"""Every environment variable and tunable of the harness, in one place: its default, why it has that value, who uses it.

A module that needs one imports it from here (``from ..settings import BUDGET_FACTOR``), so each value is written once;
``python -m autograder config`` prints them all with the values in force. This module is the bottom layer: it imports
nothing of the harness, so every package may use it (the sandbox too, which may not read the manifests).

Two kinds are only listed here, not defined: the limits the worker applies inside the box (``sandbox/worker/`` is
copied into the box and imports nothing of the grader's, so they stay constants there; ``config`` reads them), and
what the assignment's manifests set (``config`` prints those from the manifests).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    """One environment variable or tunable: its name, its default, the module that uses it, and why."""

    name: str
    default: Any
    where: str  # the module (under autograder/) that reads it
    reason: str
    env: bool = False  # an environment variable, read where it is used (``value()``), not a constant

    def value(self) -> Any:
        """The value in force: for an environment variable, what the environment says now, else its default."""
        return os.environ.get(self.name, self.default) if self.env else self.default


ALL: list[Setting] = []


def _tunable(name: str, default: Any, where: str, reason: str) -> Any:
    ALL.append(Setting(name, default, where, reason))
    return default


def _env(name: str, default: Any, where: str, reason: str) -> Setting:
    setting = Setting(name, default, where, reason, env=True)
    ALL.append(setting)
    return setting


# Environment variables.
AUTOGRADER_ROOT = _env("AUTOGRADER_ROOT", None, "model/paths.py",
                       "the project whose assignments/, reference/ and student_template/ are used (default: the folder "
                       "holding the package); tests point it at a copy of the project")
AUTOGRADER_EXPECTED_CACHE = _env("AUTOGRADER_EXPECTED_CACHE", None, "expected/records.py",
                                 "the staff cache of recorded expected values (default: $XDG_CACHE_HOME or ~/.cache, "
                                 "then autograder/expected), shared by every checkout of the project")
AUTOGRADER_CACHE = _env("AUTOGRADER_CACHE", "/var/cache/autograder", "sandbox/runtime.py",
                        "where a root grader keeps the mirror of a Python install the sandbox user cannot read")
AUTOGRADER_UID_BASE = _env(
    "AUTOGRADER_UID_BASE",
    "64000",
    "sandbox/identity.py",
    "the first of the uids leased to workers when the grader is root (none may be a real user's)",
)
AUTOGRADER_PORTABLE = _env("AUTOGRADER_PORTABLE", None, "sandbox/policy.py",
                           "=1: a self-check takes the portable path (child Pythons, no memory or file confinement), "
                           "as it does on macOS and Windows; staff commands refuse it")
AUTOGRADER_NO_BWRAP = _env(
    "AUTOGRADER_NO_BWRAP",
    None,
    "sandbox/policy.py",
    "=1: do not use bubblewrap, as in a container that refuses namespaces (tests, the emulation)",
)
AUTOGRADER_NO_LANDLOCK = _env("AUTOGRADER_NO_LANDLOCK", None, "sandbox/policy.py",
                              "=1: do not use Landlock (tests of the other layers on their own)")
AUTOGRADER_NO_SECCOMP = _env("AUTOGRADER_NO_SECCOMP", None, "sandbox/policy.py",
                             "=1: do not use seccomp (tests of the other layers on their own)")
AUTOGRADER_NO_USERNS = _env("AUTOGRADER_NO_USERNS", None, "sandbox/policy.py",
                            "=1: a grader that is not root and runs no bubblewrap gives its workers no user namespace, "
                            "so their processes count against the user's own process limit (tests of that fallback)")
AUTOGRADER_NO_CGROUP = _env("AUTOGRADER_NO_CGROUP", None, "sandbox/cpu_group.py",
                             "=1: read a call's CPU in /proc even where the grader could give its worker a cgroup of "
                             "its own (which also counts a child reaped unseen)")
AUTOGRADER_ZYGOTE = _env("AUTOGRADER_ZYGOTE", None, "sandbox/zygote.py",
                          "=0: start every worker as a fresh Python that imports torch itself, never forked from the "
                          "zygote (staff runs otherwise share one: a root grader's, and one of a user without "
                          "bubblewrap but with seccomp and Landlock 6+; students' checks and Gradescope's entry point "
                          "never do)")
ZYGOTE_IDLE_SECONDS = _tunable("ZYGOTE_IDLE_SECONDS", 60.0, "sandbox/zygote.py",
                               "a zygote with no grader and no worker for this long exits and removes its socket: "
                               "long enough to serve the next run of a suite or a script of grade commands (at 20 s "
                               "one make test started 20 zygotes of 6 kinds)")
AUTOGRADER_DEADLINE = _env("AUTOGRADER_DEADLINE", None, "grading/time_rules.py",
                           "set by the harness, not by people: the submission's deadline in epoch seconds, fixed when "
                           "grading starts on Gradescope and inherited by every process the grading starts")
AUTOGRADER_ENV_DIR = _env("AUTOGRADER_ENV_DIR", None, "gradescope/image.py",
                          "the Python environment run_autograder uses instead of the image's /opt/otter-env "
                          "(the emulation points it at the project's .venv)")
AUTOGRADER_WORKER = _env("AUTOGRADER_WORKER", None, "sandbox/process.py",
                         "set by the harness in each worker's environment: a marker that finds the worker's leftover "
                         "processes in /proc")
GRADER_BLAS_THREADS = _env("OPENBLAS_NUM_THREADS", "1", "settings.py",
                           "the grading process's own numpy, set by each door that starts one (the command line, "
                           "Gradescope's entry script, the handout's pytest plugin; the worker's is the sandbox's): "
                           "its products are small, and OpenBLAS's idle threads spin after each one, about a tenth "
                           "of the grading process's CPU in a `grade`; a value already set is kept")


def one_blas_thread() -> None:
    """Give this grading process's numpy ``GRADER_BLAS_THREADS`` BLAS threads, if numpy is not imported yet (OpenBLAS
    reads the variable once, as it loads) and the user set no value of their own."""
    if "numpy" not in sys.modules:
        os.environ.setdefault(GRADER_BLAS_THREADS.name, GRADER_BLAS_THREADS.default)


# Read by the test suite only (tests/staff/test_student_install.py): the CI modes of the install test.
for _name, _reason in (
    ("AUTOGRADER_LOWEST", "=1: install the lowest version of each requirement range of the handout"),
    ("AUTOGRADER_PYPI_INSTALL", "=1: install the handout's requirements from PyPI, not the local cache"),
    ("AUTOGRADER_STUDENT_PYTHON", "the Python the install test creates the student's venv with"),
    ("AUTOGRADER_FULL_INSTALL", "=1: the install test runs every command of the handout's README"),
):
    _env(_name, None, "tests/staff/test_student_install.py", _reason)

# Time rules (grading/time_rules.py; the README's table says how they bound a submission).
BUDGET_FACTOR = _tunable("BUDGET_FACTOR", 4, "grading/time_rules.py",
                         "a problem's calls together get this many times its call limit; > 3 so that three crashing "
                         "calls of one function still leave the problem's other functions graded")
CPU_SHARE = _tunable("CPU_SHARE", 0.5, "grading/time_rules.py",
                     "the share of a CPU a call's limit is measured at (Gradescope's allocation in assignment.yaml): a "
                     "call of limit L may use L x CPU_SHARE seconds of CPU, whatever the machine or its load")
WALL_BACKSTOP = _tunable("WALL_BACKSTOP", 2.0, "grading/time_rules.py",
                         "a call that sleeps or blocks is stopped after this many times its limit of wall clock: "
                         "CPU_SHARE over a quarter of a CPU, so a busy call stopped there before its CPU limit ran on "
                         "less than a quarter of one, which the time rules call starved (the budget bounds its cost)")
RESTART_SECONDS = _tunable("RESTART_SECONDS", 5.0, "grading/time_rules.py",
                           "a worker's start (its torch import) at 0.5 CPU, 3-5 s measured: what the worst case counts "
                           "for each restart")
DEADLINE_FRACTION = _tunable("DEADLINE_FRACTION", 0.8, "grading/time_rules.py",
                             "no call starts after this share of Gradescope's timeout: leaves the last call and "
                             "results.json a minute and more")
GRADER_SECONDS = _tunable("GRADER_SECONDS", 60.0, "grading/time_rules.py",
                          "what the worst case allows the grader's own work (starting, loading tests and recorded "
                          "values, writing results) on top of student code and restarts (make gradescope: 12-13 s for "
                          "the whole reference run)")

# Memory.
WORKER_MEMORY_MB = _tunable("WORKER_MEMORY_MB", 3500, "model/manifest.py",
                            "the student's room where no container limit exists, when assignment.yaml sets no "
                            "worker_memory_mb: far above any test's need, below a laptop's")
TAPE_MB = _tunable("TAPE_MB", 256, "grading/proxy.py",
                   "what one problem's replies may hold until they are judged (an honest submission's: a few MB); with "
                   "one reply in flight and the copy a test works on, the grader holds at most about 3 x this beyond "
                   "its own needs")
MIN_ROOM_MB = _tunable("MIN_ROOM_MB", 96, "grading/worker_memory.py",
                       "the least room the worker gets for student data: the reference's own data need 48 MB (the long "
                       "random-features test); less would fail correct solutions")
TMP_MB = _tunable("TMP_MB", 64, "sandbox/policy.py",
                  "the worker's private /tmp lives in memory: capped where bubblewrap can, or files there escape the "
                  "memory limit; also the most a call may write to its scratch folder")

# The sandbox's waits (charged to no student).
STARTUP_SECONDS = _tunable("STARTUP_SECONDS", 120.0, "sandbox/exchange.py",
                           "a worker's start (its torch import) on a slow, loaded machine")
RESET_SECONDS = _tunable(
    "RESET_SECONDS",
    30.0,
    "sandbox/session.py",
    "the worker ends a module's processes and wipes what it wrote (a stopped worker is seen at once)",
)
RESET_FREE_SECONDS = _tunable(
    "RESET_FREE_SECONDS",
    1.0,
    "sandbox/session.py",
    "of a reset, the grader's own: what a module left that takes longer to end or wipe is charged to it",
)
INTERRUPT_SECONDS = _tunable(
    "INTERRUPT_SECONDS",
    5.0,
    "sandbox/process.py",
    "after a call's limit, how long a worker may take to answer the interrupt before it is killed",
)
WATCH_SECONDS = _tunable("WATCH_SECONDS", 0.25, "sandbox/process.py",
                         "how often a running call's written files are measured")
KILL_SECONDS = _tunable("KILL_SECONDS", 10.0, "sandbox/identity.py",
                        "how long the grader waits for leftover processes to die once killed (a leased uid's, or the "
                        "emulated container's)")
UID_COUNT = _tunable("UID_COUNT", 512, "sandbox/identity.py",
                     "how many sandbox uids may be leased at once from AUTOGRADER_UID_BASE (one per worker)")
OUTPUT_LIMIT = _tunable("OUTPUT_LIMIT", 64 * 1024, "sandbox/output.py",
                        "bytes of a module's printed output kept for the student's report (the rest is cut)")
RESULTS_TEXT_LIMIT = _tunable("RESULTS_TEXT_LIMIT", 8000, "reports/results_json.py",
                              "characters of a test's message, and of a problem's printed output, in results.json: a "
                              "page a student reads on Gradescope, not a log")

# What a submission may hold (read before any of it runs).
MAX_MODULE_BYTES = _tunable("MAX_MODULE_BYTES", 1 << 20, "grading/submission.py",
                            "one module file of a submission (an honest solution is a few kB); a larger one is refused "
                            "unread")
MAX_ZIP_ENTRIES = _tunable("MAX_ZIP_ENTRIES", 10_000, "grading/submission.py",
                           "files of a submission (a zip's entries, a folder's files) looked at for the modules: a "
                           "zip or folder of many more costs no more time")
MAX_NESTED_ZIP_BYTES = _tunable("MAX_NESTED_ZIP_BYTES", 64 << 20, "grading/submission.py",
                                "a zip inside a zip is read into memory, so it has a cap of its own")
MAX_MEMBER_BYTES = _tunable("MAX_MEMBER_BYTES", 64 << 20, "gradescope/layout.py",
                            "members of an upload larger than this are left out when the emulated container unpacks it "
                            "(Gradescope's own cap is unknown)")

# Recorded expected values.
KEEP_CACHED = _tunable(
    "KEEP_CACHED",
    16,
    "expected/records.py",
    "fingerprints kept per problem in the staff cache (older ones are removed when a new one is recorded): "
    "enough for every checkout of a team working side by side, which otherwise evict each other and "
    "re-record behind one lock",
)
KEEP_INPUT_ELEMENTS = _tunable("KEEP_INPUT_ELEMENTS", 8192, "expected/store.py",
                               "inputs larger than this are kept in a store as their digest only (seeded numpy draws, "
                               "the same bits everywhere)")
HINT_MAX_ELEMENTS = _tunable("HINT_MAX_ELEMENTS", 100_000, "staff/recording.py",
                             "hints compare values: mistakes run on inputs up to this size only, and larger outputs "
                             "are not kept")

# Limits the worker applies inside the box: constants of sandbox/worker/ (module, name, reason); ``config`` reads them.
WORKER_CONSTANTS = (
    ("cleanup", "MAX_DEPTH", "deeper folder trees in a call's scratch folder stop the call that made them"),
    ("cleanup", "MAX_ENTRIES", "files, folders and links in a call's scratch folder"),
    ("wire", "MAX_MESSAGE_BYTES", "one message between grader and worker"),
    ("wire", "MAX_HEADER_BYTES", "the JSON part of a message: plain data, never the arrays"),
    ("wire", "MAX_BLOBS", "arrays in one message"),
    ("wire", "MAX_DEPTH", "nesting of a value that crosses"),
    ("wire", "MAX_REPLY_BYTES", "arrays in one reply (the worker refuses more before sending)"),
    ("wire", "MAX_TEXT", "characters of an error's type, message or traceback in a reply"),
    ("main", "ASSUMED_START_MB", "the worker's own address space when /proc cannot say (torch's CPU build)"),
)
