"""``mg.utils.benchmark``: PyTorch's ``torch.utils.benchmark.Timer`` and the ``Measurement`` it returns.

    from minigrad_ckpt.utils.benchmark import Timer

    t = Timer(stmt="f(x)", globals={"f": f, "x": x})
    print(t.timeit(100))                   # one measurement of 100 runs; .times[0] is seconds per run
    print(t.blocked_autorange())           # many blocks, their median and IQR

A port of the tutorials' timing sections runs as written: ``Timer(stmt, setup, globals=, label=,
sub_label=, description=, env=, num_threads=)`` built on Python's :mod:`timeit` (``stmt`` and ``setup``
are Python source; ``mg`` is in its globals, as ``torch`` is in PyTorch's), ``timeit(number)`` (a warm-up
of ``number // 100`` runs first), ``blocked_autorange`` and ``adaptive_autorange``.  The measurement is
PyTorch's: ``times`` (seconds per run), ``raw_times``, ``number_per_run``, ``mean``, ``median``, ``iqr``
and the same printed summary.  ``num_threads`` is set with :func:`mg.set_num_threads` for the measurement,
as PyTorch's.  ``Language`` is PyTorch's enum, so ``from torch.utils.benchmark import Language, Timer``
ports as written; ``language=Language.PYTHON`` is the one timed here.  Not offered: ``Compare``,
``Fuzzer``, C++ statements (``Language.CPP`` is a ValueError) and ``collect_callgrind``.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import sys
import textwrap
import timeit as _timeit
from collections.abc import Callable, Iterable
from typing import Any

from ..settings import get_num_threads, set_num_threads

__all__ = ["Timer", "Measurement", "TaskSpec", "Language", "select_unit"]

_IQR_WARN = 0.1         # PyTorch's thresholds for "fluctuation" and "environmental influence"
_IQR_GROSS_WARN = 0.5


class Language(enum.Enum):
    """PyTorch's languages of a timed statement; only ``PYTHON`` is timed here."""

    PYTHON = 0
    CPP = 1


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What was measured: the statement, its setup and the labels a summary shows."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (or the one-line statement), with the sub-label after a colon."""
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if self.setup in ("", "pass"):
            return ""
        return f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup else f"setup: {self.setup}"

    def summarize(self) -> str:
        sections = [s for s in (self.title, self.description or "", self.setup_str()) if s]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections)


def select_unit(t: float) -> tuple[str, float]:
    """The unit a duration of ``t`` seconds is shown in, and its size in seconds."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3) if t > 0 else -4, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def _quantile(ordered: list[float], q: float) -> float:
    """Linear interpolation between the order statistics (PyTorch's and NumPy's default)."""
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclasses.dataclass(repr=False)
class Measurement:
    """One or more timings of a statement, each of ``number_per_run`` runs (``raw_times`` in seconds)."""

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict | None = None

    @property
    def times(self) -> list[float]:
        """Seconds per run of each timing."""
        return [t / self.number_per_run for t in self.raw_times]

    def _quartiles(self) -> tuple[float, float, float]:
        ordered = sorted(self.times)
        return _quantile(ordered, 0.25), _quantile(ordered, 0.5), _quantile(ordered, 0.75)

    @property
    def median(self) -> float:
        return self._quartiles()[1]

    @property
    def mean(self) -> float:
        return math.fsum(self.times) / len(self.times)

    @property
    def iqr(self) -> float:
        p25, _, p75 = self._quartiles()
        return p75 - p25

    def meets_confidence(self, threshold: float = _IQR_WARN) -> bool:
        return self.iqr / self.median < threshold

    @property
    def has_warnings(self) -> bool:
        return bool(self._warnings())

    def _warnings(self) -> list[str]:
        if self.meets_confidence(_IQR_WARN):
            return []
        why = ("This suggests significant environmental influence." if not self.meets_confidence(_IQR_GROSS_WARN)
               else "This could indicate system fluctuation.")
        return [f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% of the median "
                f"measurement.\n           {why}"]

    # the task's fields, read through as PyTorch's Measurement does
    stmt = property(lambda self: self.task_spec.stmt)
    setup = property(lambda self: self.task_spec.setup)
    label = property(lambda self: self.task_spec.label)
    sub_label = property(lambda self: self.task_spec.sub_label)
    description = property(lambda self: self.task_spec.description)
    num_threads = property(lambda self: self.task_spec.num_threads)
    title = property(lambda self: self.task_spec.title)
    env = property(lambda self: self.task_spec.env)  # (PyTorch's reads the task's field: None unless given)
    as_row_name = property(lambda self: self.task_spec.sub_label or self.task_spec.stmt or "[Unknown]")

    def __repr__(self) -> str:
        n = len(self.raw_times)
        p25, median, p75 = self._quartiles()
        unit, scale = select_unit(median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {(p75 - p25) / scale:.2f} {unit} ({p25 / scale:.2f} to {p75 / scale:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads}")
        return "\n".join(lines + self._warnings()).strip()

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """Replicates of the same task as one measurement each, extrapolated to one run per time."""
        grouped: dict[TaskSpec, list[float]] = {}
        for m in measurements:
            grouped.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(1, times, spec) for spec, times in grouped.items()]


class Timer:
    """PyTorch's ``Timer``: ``stmt`` timed after ``setup``, both Python source run in ``globals``."""

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = _timeit.default_timer, globals: dict[str, Any] | None = None,
                 label: str | None = None, sub_label: str | None = None, description: str | None = None,
                 env: str | None = None, num_threads: int = 1, language: str = "python") -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in ("python", "py") and getattr(language, "name", None) != "PYTHON":
            raise ValueError(f"Invalid language `{language}`: only Python statements are timed here")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this code can simply "
                             f"be moved to `setup`.")
        names = dict(globals or {})
        # the package as "mg" in the statement's globals, as PyTorch puts "torch" there; looked up, not
        # imported (it is loaded: this module is reached through it), so the layers stay as they are
        names.setdefault("mg", sys.modules[__name__.split(".")[0]])
        stmt, setup = _source(stmt), _source(setup)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=names)
        self._task_spec = TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                   sub_label=sub_label, description=description, env=env, num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> Measurement:
        """``stmt`` run ``number`` times (after a warm-up of ``number // 100``, at least 2): one timing."""
        with _threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], Any] | None = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def blocked_autorange(self, callback: Callable[[int, float], Any] | None = None,
                          min_run_time: float = 0.2) -> Measurement:
        """Blocks of runs, each block long enough that reading the clock costs nothing, until
        ``min_run_time`` seconds have been spent."""
        number = self._block_size(min_run_time)
        times = self._loop(number, lambda times: True, min_run_time, None, callback)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0,
                           callback: Callable[[int, float], Any] | None = None) -> Measurement:
        """Blocks as :meth:`blocked_autorange`, until their IQR is below ``threshold`` of the median
        (with more than three blocks) or ``max_run_time`` seconds are spent."""
        number = self._block_size(0.05)

        def steady(times: list[float]) -> bool:
            return len(times) > 3 and Measurement(number, times, self._task_spec).meets_confidence(threshold)

        return Measurement(number, self._loop(number, steady, min_run_time, max_run_time, callback), self._task_spec)

    def _loop(self, number: int, can_stop: Callable[[list[float]], bool], min_run_time: float,
              max_run_time: float | None, callback: Callable[[int, float], Any] | None) -> list[float]:
        times: list[float] = []
        stop = False
        with _threads(self._task_spec.num_threads):
            while sum(times) < min_run_time or not stop:
                times.append(self._timeit(number))
                if callback:
                    callback(number, times[-1])
                stop = can_stop(times)
                if max_run_time and sum(times) > max_run_time:
                    break
        return times

    def _block_size(self, min_run_time: float) -> int:
        """Runs per block: grown tenfold until the clock's own cost is 1e-4 of a block (and a block
        takes a thousandth of ``min_run_time``), or a block alone takes ``min_run_time``."""
        with _threads(self._task_spec.num_threads):
            overhead = sorted(self._timeit(0) for _ in range(5))[2]
            number = 1
            while number * 10 <= 2147483647:
                taken = self._timeit(number)
                if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) or taken > min_run_time:
                    break
                number *= 10
        return number


def _source(code: str) -> str:
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class _threads:
    """``mg.set_num_threads(n)`` for a measurement, the count before restored after it."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __enter__(self) -> None:
        self.before = get_num_threads()
        set_num_threads(self.n)

    def __exit__(self, *exc: Any) -> None:
        set_num_threads(self.before)
