"""``examples/ported/munit.py`` -- eriklindernoren's MUNIT: adaptive instance norm as ``F.batch_norm(...,
training=True)`` of a ``(1, b*c, h, w)`` view whose weight and bias are slices of a style MLP's output,
assigned as plain module attributes on every decoder call; the models' own ``LayerNorm`` (unbiased
``std``); three-scale discriminators with ``AvgPool2d(3, 2, padding=[1, 1], count_include_pad=False)``
between scales; ``LambdaLR`` over a bound method -- gives torch 2.13's numbers: losses, the sample grid,
the decayed learning rates and the final weights' sums (``tests/data/make_ported_generative.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from ported_replay import program_test  # noqa: E402

test_munit_matches_pytorch = program_test("munit")
