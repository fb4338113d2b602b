"""Comparison helpers shared by every problem, with the messages students read.

Each ``difference_*`` function returns ``None`` when ``got`` is acceptable and otherwise a
short description of where it differs ("expected shape (3, 2), got (2, 3)"). The
``expect_*`` functions raise ``CheckFailure`` with that description. Everything runs in
the grader on plain data that came back through the sandbox (numpy arrays, ints, sets).
"""

from __future__ import annotations

import contextvars
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model.scores import DETAIL_LABELS
from ..sandbox.worker.wire import Unsupported

REVEAL = contextvars.ContextVar("reveal_expected_values", default=True)
# Set while a test's student calls are recorded (runner.run_tests); checks then judge nothing, so no work that depends
# on whether an answer is right happens before the student's calls are over (no timing oracle).
DEFERRED = contextvars.ContextVar("checks_deferred", default=False)


def revealing() -> bool:
    """Whether the current test may show expected values in its messages (public tests do, hidden tests do not)."""
    return REVEAL.get()


class CheckFailure(AssertionError):
    """A check failed: the message is written for the student; ``parts`` are its labelled lines where the check knew
    them."""

    def __init__(self, message: str = "", parts: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.parts = dict(parts or {})

    @classmethod
    def labelled(cls, **parts: str) -> CheckFailure:
        """A failure written as ``Called: ...``, ``Expected: ...``, ``Got: ...``, ``Where: ...`` and one ``Hint: ...``
        line per hint."""
        kept = {label: parts[label] for label in DETAIL_LABELS if parts.get(label)}
        lines = [
            f"{label}: {line}"
            for label, text in kept.items()
            for line in (text.splitlines() if label == "Hint" else [text])
        ]
        return cls("\n".join(lines), kept)

    def with_hints(self, hints: list[str]) -> CheckFailure:
        """The same failure with ``hints`` added."""
        if not hints:
            return self
        parts = dict(self.parts, Hint="\n".join(filter(None, [self.parts.get("Hint", ""), *hints])))
        return CheckFailure("\n".join([str(self), *(f"Hint: {h}" for h in hints)]), parts)


@dataclass(frozen=True)
class Tolerance:
    """Relative tolerance; the absolute floor is ``rtol`` times the largest expected magnitude."""

    rtol: float

    def describe(self) -> str:
        return f"relative tolerance {self.rtol:g}"


# Elements compared at once (temporaries of a few MB however large the arrays).
CHUNK = 1 << 18
FLOAT64 = Tolerance(1e-9)
FLOAT32 = Tolerance(2e-5)


def tolerance_for(*inputs: Any) -> Tolerance:
    """float32 anywhere among the inputs loosens the tolerance to float32's precision."""

    def has_float32(v: Any) -> bool:
        if hasattr(v, "dtype"):
            return "float32" in str(v.dtype) or "float16" in str(v.dtype)
        if isinstance(v, (list, tuple)):
            return any(has_float32(x) for x in v)
        if isinstance(v, dict):
            return any(has_float32(x) for x in v.values())
        return False

    return FLOAT32 if any(has_float32(v) for v in inputs) else FLOAT64


def _float_bits(value: Any, depth: int = 0) -> set[int]:
    """The widths (16, 32, 64) of the floating-point arrays in ``value``, a tensor, array or container of them."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        name = str(dtype).replace("torch.", "")
        return {int(name[5:])} if name in ("float16", "float32", "float64") else set()
    if depth < 4 and isinstance(value, (list, tuple)):
        return set().union(*(_float_bits(v, depth + 1) for v in value[:100])) if value else set()
    if depth < 4 and isinstance(value, dict):
        return set().union(*(_float_bits(v, depth + 1) for v in list(value.values())[:100])) if value else set()
    return set()


def precision_hint(got: Any, *inputs: Any) -> str | None:
    """A hint when a result is in a lower floating-point precision than every floating-point input (float32 for
    float64)."""
    given, returned = _float_bits(inputs), _float_bits(got)
    if not given or not returned or min(returned) >= min(given):
        return None
    return (
        f"your result is float{min(returned)} but the inputs are float{min(given)}: compute in the inputs' dtype "
        "(no .float(), and give torch.zeros/ones/tensor/arange dtype=X.dtype), so the result keeps their precision."
    )


def describe(value: Any, own: bool = False) -> str:
    """A short phrase for a value's kind and size, never its contents; a number shows its value in a public test, or
    when it is the student's ``own`` (what their code returned gives nothing of the expected value away)."""
    if value is None:
        return "None"
    if isinstance(value, Unsupported):
        return f"a {value.type_name} object"
    if isinstance(value, np.ndarray):
        return f"a {value.dtype.name} array of shape {tuple(value.shape)}"
    if isinstance(value, bool):
        return f"bool {value}"
    if isinstance(value, (int, float)):
        kind = type(value).__name__
        return (
            f"{kind} {value!r}"
            if REVEAL.get() or own
            else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} (not shown in a hidden test)"
        )
    if isinstance(value, (set, frozenset)):
        return f"a set of {len(value)} items"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of {len(value)} items"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return f"a {type(value).__name__}"


def key_list(keys: Any) -> str:
    """Dict keys as code writes them, in order: ``'cross', 'decoder_self'`` (a string key quoted once, an int bare)."""
    return ", ".join(sorted(map(repr, keys)))


def difference_keys(got: dict, expected: dict) -> str:
    """What differs between two dicts' keys: the keys expected, those got, and which are missing or unexpected."""
    missing, extra = [k for k in expected if k not in got], [k for k in got if k not in expected]
    text = f"expected exactly the keys {key_list(expected)}, got {key_list(got) or 'none'}"
    return (
        text
        + (f"; missing {key_list(missing)}" if missing else "")
        + (f"; unexpected {key_list(extra)}" if extra else "")
    )


def size_in_bytes(count: int) -> str:
    """A size as people read it: ``512 KiB``, ``512 MiB``, ``1.5 GiB`` (binary units throughout)."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:g} {unit}" if unit == "bytes" else f"{count:.3g} {unit}"
        count /= 1024
    raise AssertionError("unreachable")


def _as_array(value: Any) -> np.ndarray | None:
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "detach"):  # a torch tensor on the grader side (reference values)
        return value.detach().cpu().numpy()
    return None


def _fmt_index(index: tuple) -> str:
    return "(" + ", ".join(str(int(i)) for i in index) + ("," if len(index) == 1 else "") + ")"


def difference_array(got: Any, expected: Any, tol: Tolerance) -> str | None:
    """Shape, finiteness, then values, compared in float64."""
    exp = np.asarray(_as_array(expected), dtype=np.float64)
    arr = _as_array(got)
    if arr is None:
        if isinstance(got, (int, float)) and not isinstance(got, bool) and exp.shape == ():
            arr = np.asarray(got)
        else:
            return f"expected a tensor of shape {tuple(exp.shape)}, got {describe(got)}"
    if arr.dtype.kind not in "fiub":
        return f"expected a real-valued tensor, got dtype {arr.dtype.name}"
    if arr.shape != exp.shape:
        note = (
            " (it looks transposed)"
            if arr.ndim >= 2 and arr.shape == exp.shape[:-2] + exp.shape[-1:] + exp.shape[-2:-1]
            else ""
        )
        return f"expected shape {tuple(exp.shape)}, got {tuple(arr.shape)}{note}"
    # Compared in chunks of rows: the grader's temporaries stay small next to the arrays (its memory is the student's
    # room).
    flat_got, flat_exp = arr.reshape(-1), exp.reshape(-1)
    chunks = [slice(i, i + CHUNK) for i in range(0, flat_exp.size, CHUNK)] or [slice(0, 0)]
    bad_count, first_bad = 0, None
    for part in chunks:
        bad = ~np.isfinite(flat_got[part].astype(np.float64)) & np.isfinite(flat_exp[part])
        if bad.any():
            bad_count += int(bad.sum())
            first_bad = first_bad if first_bad is not None else part.start + int(np.flatnonzero(bad)[0])
    if bad_count:
        index = np.unravel_index(first_bad, arr.shape)
        return (f"got a non-finite value ({float(arr[index])}) at index {_fmt_index(index)} where a finite value was "
                f"expected ({bad_count} such entries)")
    scale = max(
        (float(np.max(np.abs(flat_exp[part][np.isfinite(flat_exp[part])]), initial=0.0)) for part in chunks),
        default=0.0,
    )
    wrong_count, first, worst, worst_err = 0, None, None, -1.0
    for part in chunks:
        g, e = flat_got[part].astype(np.float64), flat_exp[part]
        with np.errstate(invalid="ignore"):
            # A NaN matches only a NaN (a known mistake's recorded output may hold NaNs); it counts as the largest
            # error.
            err = np.where(np.isnan(g) | np.isnan(e), np.inf, np.abs(g - e))
            wrong = ~((err <= tol.rtol * (np.abs(e) + scale)) | (g == e) | (np.isnan(g) & np.isnan(e)))
        if wrong.any():
            wrong_count += int(wrong.sum())
            first = first if first is not None else part.start + int(np.flatnonzero(wrong)[0])
            i = int(np.argmax(np.where(wrong, err, -1.0)))
            if err[i] > worst_err:  # the first of the largest errors, as one argmax over the whole array
                worst, worst_err = part.start + i, float(err[i])
    if not wrong_count:
        return None
    first_i = np.unravel_index(first, arr.shape)
    worst_i = np.unravel_index(worst, arr.shape)
    text = f"{wrong_count} of {arr.size} entries differ ({tol.describe()}); first at index {_fmt_index(first_i)}"
    if not REVEAL.get():  # the largest error, beside the student's own value, would give the expected value away
        return text
    text += f": expected {exp[first_i]:.10g}, got {float(arr[first_i]):.10g}"
    return text + f"; largest error {worst_err:.3g} at index {_fmt_index(worst_i)}"


def difference_int(got: Any, expected: int) -> str | None:
    """Exact integers: Python ints or 0-d integer arrays, never floats or bools."""
    if isinstance(got, np.ndarray) and got.shape == () and got.dtype.kind in "iu":
        got = int(got)
    if isinstance(got, bool) or not isinstance(got, int):
        extra = " (use integer arithmetic such as ** and //, not math.pow or /)" if isinstance(got, float) else ""
        return f"expected an int, got {describe(got)}{extra}"
    if got == expected:
        return None
    if REVEAL.get():
        return f"expected {expected}, got {got}"
    return f"got {got}, which is {'too large' if got > expected else 'too small'}"


def difference_set(got: Any, expected: set) -> str | None:
    """Sets of ints: says how many are missing and how many are extra."""
    if not isinstance(got, (set, frozenset)):
        return f"expected a set of ints, got {describe(got)}"
    bad = [x for x in got if isinstance(x, bool) or not isinstance(x, int)]
    if bad:
        return f"expected a set of ints, but it holds {describe(bad[0])}"
    missing, extra = set(expected) - set(got), set(got) - set(expected)
    if not missing and not extra:
        return None
    parts = []
    if missing:
        parts.append(
            f"{len(missing)} expected position(s) missing" + (f": {sorted(missing)[:10]}" if REVEAL.get() else "")
        )
    if extra:
        parts.append(f"{len(extra)} unexpected position(s)" + (f": {sorted(extra)[:10]}" if REVEAL.get() else ""))
    return f"got a set of {len(got)}, expected {len(expected)}; " + "; ".join(parts)


def difference(got: Any, expected: Any, tol: Tolerance = FLOAT64) -> str | None:
    """Dispatch on the expected value's kind."""
    if isinstance(expected, bool):
        return None if got is expected else f"expected {expected}, got {describe(got)}"
    if isinstance(expected, int):
        return difference_int(got, expected)
    if isinstance(expected, (set, frozenset)):
        return difference_set(got, set(expected))
    if isinstance(expected, float):
        return difference_array(got, np.asarray(expected), tol)
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return f"expected a dict with keys {key_list(expected)}, got {describe(got)}"
        if set(got) != set(expected):
            return difference_keys(got, expected)
        for key in expected:
            diff = difference(got[key], expected[key], tol)
            if diff:
                return f"value for key {key!r}: {diff}"
        return None
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)):
            return f"expected {len(expected)} values (a tuple), got {describe(got)}"
        if len(got) != len(expected):
            return f"expected {len(expected)} values, got {len(got)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            diff = difference(g, e, tol)
            if diff:
                return f"value {i} of the tuple: {diff}"
        return None
    if _as_array(expected) is not None:
        return difference_array(got, expected, tol)
    raise TypeError(f"cannot compare with expected value of type {type(expected).__name__}")


def fail(message: str, called: str | None = None) -> None:
    """Raise a ``CheckFailure`` with an optional 'Called:' line first."""
    if DEFERRED.get():
        return
    parts = {"Called": called, "Where": message} if called else {"Where": message}
    raise CheckFailure((f"Called: {called}\n" if called else "") + message, parts)


def expect_equal(got: Any, expected: Any, tol: Tolerance = FLOAT64, called: str | None = None) -> None:
    """Raise ``CheckFailure`` unless ``got`` matches ``expected``."""
    if DEFERRED.get():
        return
    diff = difference(got, expected, tol)
    if diff:  # labelled like Call.matches, so a table shows the expected value and what came back in their own columns
        raise CheckFailure.labelled(Called=called or "", Expected=describe(expected), Got=describe(got), Where=diff)


def expect_true(condition: bool, message: str, called: str | None = None) -> None:
    """Raise ``CheckFailure`` with ``message`` unless ``condition`` holds."""
    if not condition:
        fail(message, called)


def expect_between(value: float, low: float, high: float, what: str) -> None:
    """A statistic within a band, e.g. a sample variance within its sampling spread."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        fail(f"{what}: expected a finite number, got {describe(value)}")
    if not low <= value <= high:
        fail(f"{what} is {value:.6g}, outside the accepted range [{low:.6g}, {high:.6g}]")
