"""A layer given input of another dtype than its parameters raises an error PyTorch's handlers
catch: ``RuntimeError`` for ``Linear``, convolutions, norms, the cells and attention, ``ValueError``
for ``RNN`` / ``LSTM`` / ``GRU`` (tests/data/layer_dtype_errors.json, recorded from torch 2.13 by
tests/data/make_layer_dtype_errors.py). The engine raised a bare ``TypeError``, which neither catches;
it is still a ``TypeError`` (what the mistake is)."""

from __future__ import annotations

import builtins
import json
import pathlib

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn

# per layer: its constructor arguments and input shape, and what torch raised for each dtype
TORCH = json.loads(pathlib.Path(__file__).with_name("data").joinpath("layer_dtype_errors.json").read_text())
# torch 2.13's RMSNorm promotes float64 input (None): the engine refuses it, as every layer here does
CASES = [(name, d) for name in sorted(TORCH["specs"]) for d in ("float64", "int64")
         if TORCH["raised"][name][d] is not None]


@pytest.mark.parametrize("name,dtype", CASES)
def test_wrong_input_dtype_raises_what_pytorch_raises(name, dtype):
    args, shape = TORCH["specs"][name]
    mg.manual_seed(0)
    layer = getattr(nn, name)(*args)
    x = mg.ones(*shape, dtype=dtype)
    with pytest.raises(TypeError) as info:
        layer(x, x, x) if name == "MultiheadAttention" else layer(x)
    expected = getattr(builtins, TORCH["raised"][name][dtype])
    if expected is NotImplementedError:  # torch's "not implemented for 'Long'": a missing kernel, a RuntimeError
        expected = RuntimeError
    assert isinstance(info.value, expected), (name, dtype, type(info.value).__mro__)
