"""Functions at kinks (non-differentiable points) for ``gradcheck`` and ``gradgradcheck``, written
once for either library: each case is ``(function of (lib, x), input values)``, where ``lib`` is
``torch`` or ``minigrad_ckpt``.  ``make_torch_gradcheck_kinks.py`` records PyTorch's verdicts;
``tests/test_gradcheck_kinks_torch_verdicts.py`` asks ``mg.autograd`` for the same ones.
"""

from __future__ import annotations

CASES = {
    "abs at 0": (lambda lib, x: lib.abs(x), [-1.0, 0.0, 2.0]),
    "relu at 0": (lambda lib, x: lib.nn.functional.relu(x), [-1.0, 0.0, 2.0]),
    "max tie": (lambda lib, x: lib.max(x), [2.0, 1.0, 2.0]),
    "amax tie": (lambda lib, x: lib.amax(x, 0), [2.0, 1.0, 2.0]),
    "maximum tie": (lambda lib, x: lib.maximum(x, x.flip(0)), [1.0, 3.0, 1.0]),
    "clamp at a bound": (lambda lib, x: lib.clamp(x, -1.0, 1.0), [-1.0, 0.5, 1.0]),
    "hardtanh at a bound": (lambda lib, x: lib.nn.functional.hardtanh(x), [-1.0, 0.5, 1.0]),
    "leaky_relu at 0": (lambda lib, x: lib.nn.functional.leaky_relu(x, 0.1), [0.0, 2.0]),
    "x abs(x) at 0": (lambda lib, x: x * lib.abs(x), [-1.0, 0.0, 2.0]),
    "relu(x) x at 0": (lambda lib, x: lib.nn.functional.relu(x) * x, [-1.0, 0.0, 2.0]),
    "floor at an integer": (lambda lib, x: lib.floor(x), [1.0, 1.5]),
    "smooth": (lambda lib, x: lib.tanh(x) * x, [0.0, 0.5]),
}
