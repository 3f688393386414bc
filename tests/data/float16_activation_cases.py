"""The float16 activations ``make_torch_float16_activations.py`` records and
``tests/test_float16_activations.py`` replays: ``name -> call(F, x)``, written once for
``torch.nn.functional`` and ``mg.nn.functional`` (the same names), on the grid ``X``."""

from __future__ import annotations

import numpy as np

# every 0.1 from -12 to 12 (saturation, the corners at +-3, the tails where float16 cancels),
# as float16, and the ends of float16's range
X = np.concatenate([np.arange(-12.0, 12.0, 0.1), [-65504.0, -20.0, 20.0, 65504.0]]).astype(np.float16)



def _plain(name: str):
    return lambda F, x: getattr(F, name)(x)


# the activations with their default arguments, then some with arguments of their own
CASES = {name: _plain(name) for name in ("sigmoid", "tanh", "silu", "mish", "elu", "selu", "hardswish",
                                         "hardsigmoid", "softplus", "logsigmoid")}
CASES.update({
    "elu_alpha": lambda F, x: F.elu(x, 0.3),
    "celu": lambda F, x: F.celu(x, 1.7),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.01),
    "softplus_beta": lambda F, x: F.softplus(x, beta=2.0, threshold=5.0),
})
