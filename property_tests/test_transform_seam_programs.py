"""Random programs of nested transforms whose levels run as checkpointed segments.

The programs of ``tests/data/func_programs.py`` (transforms nested two or three
deep, each closing over the outer variables and a parameter, with modules,
dropout and in-place writes), where some levels run inside
``mg.checkpoint.checkpoint``: the transform of such a level runs its backward
pass -- or its forward-mode pass over one -- while the segment is still
recording, and the backward of the whole program replays the segment
afterwards.  Every derivative must equal float64 central differences, as for
the programs without segments (``tests/test_func_random_programs.py``, whose
checker this reuses).
"""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

TESTS = Path(__file__).parent.parent / "tests"
sys.path.insert(0, str(TESTS))
from test_func_random_programs import check_program, programs  # noqa: E402

sys.path.remove(str(TESTS))


SECOND_ORDER = ("hessian", "hvp")


def _differences_can_check(spec: dict) -> bool:
    # Three second derivatives nested (a Hessian of a Hessian of a Hessian) are a sixth
    # derivative: nested central differences of it are off by more than the tolerance
    # (O(eps^2) for each level, on values of 1e6 and more), however right the engine is.
    return sum(k in SECOND_ORDER for k in spec["kinds"] + [spec["outer"]]) < 3


@st.composite
def programs_with_segments(draw) -> dict:
    spec = draw(programs().filter(_differences_can_check))
    depth = len(spec["kinds"])
    spec["segments"] = draw(st.lists(st.booleans(), min_size=depth, max_size=depth).filter(any))
    return spec


@given(programs_with_segments())
def test_levels_run_as_checkpointed_segments_match_central_differences(spec):
    assert check_program(spec) in ("checked", "refused")
