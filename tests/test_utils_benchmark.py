"""``mg.utils.benchmark``: PyTorch's ``torch.utils.benchmark.Timer`` and ``Measurement``, which the function-
transform tutorials time their programs with (``Timer(stmt=..., globals=globals()).timeit(100)``; before,
``mg.utils.benchmark`` was an AttributeError).

The expected summaries were made offline with torch 2.13 from the same measurements::

    from torch.utils.benchmark.utils.common import Measurement, TaskSpec
    repr(Measurement(100, [0.00377], TaskSpec("x * 2", "pass")))
"""

from __future__ import annotations

import re

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.benchmark import Measurement, TaskSpec, Timer

TORCH_ONE = "<Measurement object at 0x?>\nx * 2\n  37.70 us\n  1 measurement, 100 runs , 1 thread"
TORCH_SEVEN = ("<Measurement object at 0x?>\nstmt: (s)\n  f(x)\n  g(x)\n\nd\nsetup:\n  y = 1\n  z = 2\n\n"
               "  Median: 4.90 us\n  IQR:    2.85 us (2.80 to 5.65)\n"
               "  7 measurements, 1000 runs per measurement, 2 threads\n"
               "  WARNING: Interquartile range is 58.2% of the median measurement.\n"
               "           This suggests significant environmental influence.")
TORCH_FOUR = ("<Measurement object at 0x?>\nL: s\n  Median: 153.50 ns\n  IQR:    4.75 ns (151.50 to 156.25)\n"
              "  4 measurements, 10 runs per measurement, 1 thread")


def _shown(m: Measurement) -> str:
    return re.sub(r"<[\w.]*Measurement object at 0x[0-9a-f]+>", "<Measurement object at 0x?>", repr(m))


def test_the_tutorials_timing_runs_and_measures_per_run():
    x = mg.ones(3)
    m = Timer(stmt="f(x) + mg.ones(3)", setup="f = lambda v: v * 2", globals={"x": x}).timeit(20)
    assert isinstance(m, Measurement) and mg.utils.benchmark is not None
    assert m.number_per_run == 20 and len(m.raw_times) == 1 and m.times == [m.raw_times[0] / 20]
    assert m.times[0] > 0 and m.mean == m.median == m.times[0] and m.iqr == 0
    assert m.title == m.stmt == "f(x) + mg.ones(3)" and m.setup == "f = lambda v: v * 2" and m.env is None
    before, seen = mg.get_num_threads(), []
    m = Timer(stmt="seen.append(mg.get_num_threads())", globals={"seen": seen}, sub_label="s",
              num_threads=before + 1).blocked_autorange(min_run_time=0.01)
    assert sum(m.raw_times) >= 0.01 and m.number_per_run >= 1 and m.as_row_name == "s"
    assert set(seen) == {before + 1} == {m.num_threads} and mg.get_num_threads() == before  # set while measuring
    m = Timer(stmt="x * 2", globals={"x": x}).adaptive_autorange(max_run_time=0.05)
    assert len(m.times) >= 1 and all(t > 0 for t in m.times)


def test_summary_and_statistics_are_torchs():
    assert _shown(Measurement(100, [0.00377], TaskSpec("x * 2", "pass"))) == TORCH_ONE
    seven = Measurement(1000, [0.0021, 0.0035, 0.0049, 0.0052, 0.0061, 0.0018, 0.0095],
                        TaskSpec("f(x)\ng(x)", "y = 1\nz = 2", sub_label="s", description="d", num_threads=2))
    assert _shown(seven) == TORCH_SEVEN and seven.has_warnings
    assert seven.median == pytest.approx(4.9e-06, rel=1e-12) and seven.mean == pytest.approx(4.728571428571428e-06)
    assert seven.iqr == pytest.approx(2.85e-06, rel=1e-12)
    four = Measurement(10, [1.5e-6, 1.6e-6, 1.55e-6, 1.52e-6], TaskSpec("a", "pass", label="L", sub_label="s"))
    assert _shown(four) == TORCH_FOUR and not four.has_warnings
    merged = Measurement.merge([Measurement(100, [0.00377], TaskSpec("x * 2", "pass")),
                                Measurement(50, [0.002], TaskSpec("x * 2", "pass"))])
    assert len(merged) == 1 and merged[0].number_per_run == 1
    assert merged[0].times == pytest.approx([3.77e-05, 4e-05])


def test_what_torchs_timer_refuses():
    with pytest.raises(ValueError, match="only a `str` stmt"):
        Timer(stmt=lambda: None)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        Timer(stmt="pass", global_setup="int x;")
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        Timer().repeat()
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        Timer().autorange()


def test_language_is_pytorchs_enum_and_python_is_what_is_timed():
    # timer_quick_start: ``from torch.utils.benchmark import Language, Timer`` -- the import failed here
    # (ImportError); torch 2.13: [Language.PYTHON: 0, Language.CPP: 1]
    from minigrad_ckpt.utils.benchmark import Language, Timer

    assert [(lang.name, lang.value) for lang in Language] == [("PYTHON", 0), ("CPP", 1)]
    m = Timer("x * y", "x = mg.ones((128,))\ny = mg.ones((1,))", language=Language.PYTHON).timeit(5)
    assert m.number_per_run == 5
    with pytest.raises(ValueError, match="only Python statements"):
        Timer("x * y;", "auto x = torch::ones({128});", language=Language.CPP)
