"""Layer options and inputs that PyTorch refuses, refused here with PyTorch's exception type.

Found by a differential probe against PyTorch 2.13's module database (``module_error_inputs_func`` of
``torch.testing._internal.common_modules``): each row below is one of its error inputs, with the
exception type torch raised (printed offline; torch is not imported here).  Before, ``nn.LSTM(3, 5,
bias=1)`` or ``batch_first="False"`` were read as truthy without a word, and a float size was a
``ValueError`` where PyTorch (and Python) say ``TypeError``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F

RECURRENT = (nn.RNN, nn.GRU, nn.LSTM)

# (label, keyword arguments beside input_size=3, hidden_size=5, the exception torch raises)
RECURRENT_OPTIONS = [
    ("bias=1", {"bias": 1}, TypeError),              # "bias should be of type bool, got: int"
    ("bias=0", {"bias": 0}, TypeError),
    ("bias='False'", {"bias": "False"}, TypeError),  # "bias should be of type bool, got: str"
    ("batch_first=1", {"batch_first": 1}, TypeError),
    ("batch_first='True'", {"batch_first": "True"}, TypeError),
    ("input_size=3.0", {"input_size": 3.0}, TypeError),  # "input_size should be of type int, got: float"
    ("input_size='10'", {"input_size": "10"}, TypeError),
    ("hidden_size=5.0", {"hidden_size": 5.0}, TypeError),
    ("num_layers=1.5", {"num_layers": 1.5}, TypeError),  # torch's range(num_layers) refuses the float
    ("input_size=0", {"input_size": 0}, ValueError),     # "input_size must be greater than zero"
    ("hidden_size=-1", {"hidden_size": -1}, ValueError),
    ("num_layers=0", {"num_layers": 0}, ValueError),
]


@pytest.mark.parametrize("layer", RECURRENT, ids=lambda c: c.__name__)
@pytest.mark.parametrize("label, options, error", RECURRENT_OPTIONS, ids=[r[0] for r in RECURRENT_OPTIONS])
def test_recurrent_layer_refuses_an_option_of_the_wrong_type_as_torch(layer, label, options, error):
    kwargs = {"input_size": 3, "hidden_size": 5, **options}
    with pytest.raises(error, match=label.split("=")[0]):
        layer(**kwargs)


@pytest.mark.parametrize("layer", RECURRENT, ids=lambda c: c.__name__)
def test_recurrent_layer_takes_bools_and_ints(layer):
    m = layer(3, 5, num_layers=2, bias=False, batch_first=True)
    assert (m.bias, m.batch_first, m.num_layers) == (False, True, 2)
    out = m(mg.zeros(2, 4, 3))[0]
    assert tuple(out.shape) == (2, 4, 5)


# torch.nn.HuberLoss(delta=1j): "delta must be a float or int, got: <class 'complex'>"; its check is
# at construction, where the module database expects it (F.huber_loss refuses it too, when called)
@pytest.mark.parametrize("delta", [1j, "1", None, mg.tensor(1.0)], ids=["complex", "str", "None", "tensor"])
def test_huber_loss_refuses_a_delta_that_is_not_a_number_when_built(delta):
    with pytest.raises(TypeError, match="delta must be a float or int"):
        nn.HuberLoss(delta=delta)


@pytest.mark.parametrize("delta", [0.5, 2, True])  # torch takes a bool (an int) too
def test_huber_loss_takes_a_float_or_int_delta(delta):
    loss = nn.HuberLoss(delta=delta)(mg.tensor([0.0, 3.0]), mg.tensor([0.25, 0.0]))
    d = float(delta)
    expected = (0.5 * 0.25**2 + d * (3.0 - 0.5 * d)) / 2 if d < 3 else 0
    assert abs(float(loss) - expected) < 1e-6


def _r(*shape):
    return mg.tensor(np.random.default_rng(len(shape)).standard_normal(shape))


def _classes(*shape):
    return mg.zeros(*shape, dtype="int64")


# (label, call, torch's message): shapes PyTorch's kernels refuse with RuntimeError (this engine said
# ValueError alone; InputMismatch is both, so NumPy-style handlers still catch it)
LOSS_SHAPES = [
    ("MultiMarginLoss target of 3 for 5 rows", lambda: nn.MultiMarginLoss()(_r(5, 10), _classes(3)),
     "target tensor should be 1-D with size equal to the number of input samples"),
    ("multi_margin_loss target (5, 1)", lambda: F.multi_margin_loss(_r(5, 10), _classes(5, 1)),
     "target tensor should be 1-D with size equal to the number of input samples"),
    ("multi_margin_loss 3-D input", lambda: F.multi_margin_loss(_r(2, 5, 10), _classes(2)),
     "Expected non-empty vector or matrix with optional 0-dim batch size"),
    ("multilabel_margin_loss 3-D input", lambda: F.multilabel_margin_loss(_r(2, 5, 10), _classes(2, 5, 10)),
     "Expected non-empty vector or matrix with optional 0-dim batch size"),
    ("cosine_embedding_loss rows 5 and 4", lambda: F.cosine_embedding_loss(_r(5, 3), _r(4, 3), mg.ones(5)),
     "The size of tensor a (5) must match the size of tensor b (4)"),
]


@pytest.mark.parametrize("label, call, torch_message", LOSS_SHAPES, ids=[r[0] for r in LOSS_SHAPES])
def test_loss_shapes_torch_refuses_are_runtime_errors(label, call, torch_message):
    with pytest.raises(RuntimeError):
        call()
    with pytest.raises(ValueError):  # as before
        call()
