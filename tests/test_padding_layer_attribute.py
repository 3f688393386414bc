"""A padding layer pads by its ``padding`` attribute as it is at each call, as PyTorch's (``forward`` is
``F.pad(input, self.padding, ...)``): the layer kept a second copy under F.pad's argument name, so
``layer.padding = (2, 2, 0, 0)`` after construction changed the repr but not the padding
(torch 2.13: ``nn.ZeroPad2d(1)`` with ``padding`` set to ``(2, 2, 0, 0)`` maps (2, 3, 6, 7) to
(2, 3, 6, 11); the engine gave (2, 3, 8, 9))."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

nn, F = mg.nn, mg.nn.functional
MODES = {"Zero": "constant", "Constant": "constant", "Reflection": "reflect", "Replication": "replicate",
         "Circular": "circular"}


@pytest.mark.parametrize("spatial", [1, 2, 3])
@pytest.mark.parametrize("kind", sorted(MODES))
def test_padding_set_after_construction_is_used(kind, spatial):
    cls = getattr(nn, f"{kind}Pad{spatial}d")
    layer = cls(1, 2.5) if kind == "Constant" else cls(1)
    new = (2, 3, 1, 4, 0, 5)[:2 * spatial]  # each less than the length 6, for reflection
    layer.padding = new
    x = mg.arange(2.0 * 3 * 6 ** spatial).reshape(2, 3, *(6,) * spatial).requires_grad_()
    y = layer(x)
    want = F.pad(x, new, mode=MODES[kind], value=2.5 if kind == "Constant" else 0.0)
    assert y.shape == want.shape
    np.testing.assert_array_equal(y.detach().numpy(), want.detach().numpy())
    assert repr(layer).startswith(f"{cls.__name__}(") and str(new) in repr(layer)


# torch 2.13: repr(nn.ConstantPad1d(1, 2)) -> 'ConstantPad1d(padding=(1, 1), value=2)', .value -> 2 (an int, kept
# as given; the module-database probe found the engine's 2.0); nn.ConstantPad1d(1, 2.5) -> value=2.5;
# repr(nn.ZeroPad2d(1)) -> 'ZeroPad2d((1, 1, 1, 1))', .value -> 0.0, isinstance(nn.ZeroPad2d(1), nn.ConstantPad2d)
@pytest.mark.parametrize("value, shown", [(2, "2"), (2.5, "2.5"), (-1, "-1")])
def test_constant_pad_keeps_its_value_as_given(value, shown):
    m = nn.ConstantPad1d(1, value)
    assert m.value == value and type(m.value) is type(value)
    assert repr(m) == f"ConstantPad1d(padding=(1, 1), value={shown})"
    np.testing.assert_array_equal(m(mg.zeros(1, 2)).numpy(), [[value, 0, 0, value]])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_zero_pads_are_constant_pads_of_zero(n):
    zero = getattr(nn, f"ZeroPad{n}d")(1)
    assert isinstance(zero, getattr(nn, f"ConstantPad{n}d"))
    assert zero.value == 0.0
    assert repr(zero) == f"ZeroPad{n}d({(1,) * 2 * n})"
