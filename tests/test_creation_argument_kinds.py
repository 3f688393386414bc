"""What the creation functions make of the kinds of their arguments, as PyTorch's.  torch 2.13:

* a shape is integers: ``torch.zeros((2.5, 3))`` and ``torch.zeros((True, 2))`` are TypeErrors (here
  ``int()`` truncated 2.5 to 2), and a one-element integer tensor is an integer
  (``torch.zeros(torch.tensor(2))`` has shape ``(2,)``; here ``len() of a 0-d tensor``);
* ``torch.full``'s dtype follows the fill value's kind alone: ``full((2,), np.int32(3))`` is int64,
  ``full((2,), torch.tensor(3.5, dtype=torch.float64))`` the default float32 (here int32 and float64),
  and ``full((2,), 2**63)`` is an overflow error (here a uint64 tensor);
* ``torch.randint``'s bounds are integers and values of its dtype: ``randint(0.5, 10.5, (3,))`` is a
  TypeError (here a float64 tensor), ``randint(0, 300, (3,), dtype=torch.uint8)`` 'to - 1 is out of
  bounds for unsigned char' (here values wrapped mod 256), a complex dtype is refused, and
  ``randint(0, 2, (3,), dtype=torch.bool)`` is a bool tensor (here int64).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

SHAPED = [mg.zeros, mg.ones, mg.empty, mg.rand, mg.randn]


@pytest.mark.parametrize("make", SHAPED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("bad", [(2.5, 3), (2.0, 3), (np.float64(2), 3), (True, 2), (2, np.bool_(True))], ids=repr)
def test_a_shape_refuses_floats_and_bools(make, bad):
    with pytest.raises(TypeError, match="tuple of ints"):
        make(bad)
    with pytest.raises(TypeError, match="tuple of ints"):
        make(*bad)


@pytest.mark.parametrize("make", SHAPED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("bad", [2.0, 2.5, np.float32(2)], ids=repr)
def test_a_lone_float_size_is_refused_as_a_size(make, bad):
    """``torch.ones(n / 2)`` is "argument 'size' must be tuple of ints, not float"; here it was
    "'float' object is not iterable" (read as a sequence of sizes), and so was ``nn.BatchNorm2d(c / 2)``,
    whose parameters are ``ones(num_features)`` (found porting kuangliu/pytorch-cifar's ShuffleNet,
    ``mid_planes = out_planes/4``)."""
    with pytest.raises(TypeError, match="tuple of ints, but found element of type float"):
        make(bad)


def test_a_module_given_a_float_width_names_the_size():
    with pytest.raises(TypeError, match="tuple of ints, but found element of type float"):
        mg.nn.BatchNorm2d(50.0)


@pytest.mark.parametrize("make", SHAPED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_one_element_integer_tensor_is_a_size(make, device):
    assert make(mg.tensor(2), device=device).shape == (2,)
    assert make(mg.tensor([2]), 3, device=device).shape == (2, 3)
    assert make((np.int32(2), mg.tensor(3, dtype=mg.int8)), device=device).shape == (2, 3)
    with pytest.raises(TypeError):
        make(mg.tensor(2.0), device=device)


@pytest.mark.parametrize("default", [mg.float32, mg.float64])
@pytest.mark.parametrize("fill, kind", [
    (np.int32(3), "int64"), (np.uint8(3), "int64"), (mg.tensor(3, dtype=mg.int8), "int64"), (7, "int64"),
    (mg.tensor(3.5, dtype=mg.float64), "default"), (mg.tensor(1.5, dtype=mg.float16), "default"),
    (np.float16(1.5), "default"), (2.5, "default"), (True, "bool"), (mg.tensor(True), "bool"),
], ids=repr)
def test_full_infers_its_dtype_from_the_fill_values_kind(default, fill, kind):
    before = mg.get_default_dtype()
    mg.set_default_dtype(default)
    try:
        t = mg.full((2,), fill)
    finally:
        mg.set_default_dtype(before)
    assert t.dtype == (default if kind == "default" else getattr(mg, kind))
    assert t.tolist() == [float(fill)] * 2


def test_full_refuses_an_int_beyond_int64():
    with pytest.raises(RuntimeError, match="overflow"):
        mg.full((2,), 2**63)
    assert mg.full((2,), 2**63 - 1).tolist() == [2**63 - 1] * 2


@pytest.mark.parametrize("low, high", [(0.5, 10.5), (0, 10.0), (np.float64(1), 3)])
def test_randint_bounds_are_integers(low, high):
    with pytest.raises(TypeError, match="must be int"):
        mg.randint(low, high, (3,))


@pytest.mark.parametrize("low, high, dtype, words", [
    (0, 300, "uint8", "to - 1"), (-1, 5, "uint8", "from"), (-129, 0, "int8", "from"), (0, 3, "bool", "to - 1"),
    (0, 70000, "float16", "to - 1"), (0, 2**31 + 1, "int32", "to - 1"),
])
def test_randint_bounds_are_values_of_the_dtype(low, high, dtype, words):
    with pytest.raises(RuntimeError, match=f"^{words} is out of bounds"):
        mg.randint(low, high, (3,), dtype=getattr(mg, dtype))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("low, high, dtype", [
    (0, 2, "bool"), (0, 256, "uint8"), (-128, 128, "int8"), (-5, 5, "float32"), (0, 10, "float64"),
    (-2**63, 2**63 - 1, "int64"),
])
def test_randint_makes_its_dtype_in_range(device, low, high, dtype):
    # (20,000 draws: each of 256 values is missing from them with probability (255/256)^20000, 1e-34)
    t = mg.randint(low, high, (20000,), dtype=getattr(mg, dtype), device=device)
    assert t.dtype == getattr(mg, dtype)
    v = t.cpu().numpy()
    assert v.min() >= low and v.max() <= high - 1
    if dtype in ("bool", "uint8", "int8"):
        assert len(np.unique(v)) == high - low  # every value drawn, none wrapped


def test_randint_refuses_a_complex_dtype():
    with pytest.raises(RuntimeError, match="integral, floating-point and boolean"):
        mg.randint(0, 10, (3,), dtype=mg.complex64)
