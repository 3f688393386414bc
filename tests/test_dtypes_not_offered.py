"""PyTorch's dtypes NumPy lacks (bfloat16, complex32/chalf) exist as names, so that a script that
names them runs -- nanoGPT's train.py builds ``{'float32': torch.float32, 'bfloat16': torch.bfloat16,
'float16': torch.float16}[dtype]`` and asks ``torch.cuda.is_bf16_supported()`` before choosing --
and computing in them is a TypeError that names what to use (never a silent float32)."""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict stand-in device)

REFUSED = {
    "zeros": lambda d: mg.zeros(2, dtype=d),
    "empty": lambda d: mg.empty(2, dtype=d),
    "full": lambda d: mg.full((2,), 1.0, dtype=d),
    "arange": lambda d: mg.arange(3, dtype=d),
    "randn": lambda d: mg.randn(2, dtype=d),
    "tensor": lambda d: mg.tensor([1.0], dtype=d),
    "as_tensor": lambda d: mg.as_tensor([1.0], dtype=d),
    "zeros_like": lambda d: mg.zeros_like(mg.ones(2), dtype=d),
    "new_zeros": lambda d: mg.ones(2).new_zeros(2, dtype=d),
    "to": lambda d: mg.ones(2).to(d),
    "to_device_dtype": lambda d: mg.ones(2).to("cpu", d),
    "to_on_strict": lambda d: mg.ones(2, device="strict").to(dtype=d),
    "type": lambda d: mg.ones(2).type(d),
    "sum_dtype": lambda d: mg.ones(2).sum(dtype=d),
    "softmax_dtype": lambda d: mg.nn.functional.softmax(mg.ones(2), -1, dtype=d),
    "module_to": lambda d: mg.nn.Linear(2, 2).to(d),
    "set_default_dtype": lambda d: mg.set_default_dtype(d),
    "finfo": lambda d: mg.finfo(d),
}


@pytest.mark.parametrize("name, expected", [("bfloat16", "float32"), ("complex32", "complex64"),
                                            ("chalf", "complex64")])
@pytest.mark.parametrize("use", sorted(REFUSED))
def test_computing_in_a_dtype_numpy_lacks_is_a_type_error_naming_the_alternative(name, expected, use):
    before = mg.get_default_dtype()
    for dtype in (getattr(mg, name), name):  # the object and its name as a string
        with pytest.raises(TypeError, match=f"is not offered.*use {expected}"):
            REFUSED[use](dtype)
    assert mg.get_default_dtype() == before


def test_the_names_exist_compare_unequal_and_a_script_choosing_its_dtype_runs():
    assert mg.chalf is mg.complex32
    assert mg.bfloat16 != mg.float32 and mg.float32 != mg.bfloat16 and mg.bfloat16 != mg.float16
    assert mg.ones(2).dtype != mg.bfloat16
    assert mg.bfloat16.is_floating_point and not mg.bfloat16.is_complex and mg.complex32.is_complex
    assert repr(mg.bfloat16) == "minigrad_ckpt.bfloat16"
    assert mg.cuda.is_bf16_supported() is False and mg.cuda.is_bf16_supported(including_emulation=False) is False
    # nanoGPT's train.py, as written
    dtype = "bfloat16" if mg.cuda.is_available() and mg.cuda.is_bf16_supported() else "float16"
    ptdtype = {"float32": mg.float32, "bfloat16": mg.bfloat16, "float16": mg.float16}[dtype]
    assert ptdtype == mg.float16
    # autocast never lowers precision here: naming bfloat16 there is accepted as float16 is (it warns
    # once per process, tests/test_amp.py), and ops keep their dtype
    x = mg.ones(2, 2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with mg.autocast("cpu", dtype=mg.bfloat16):
            y = (x @ x).sum()
    y.backward()
    assert y.dtype == mg.float32 and x.grad.dtype == mg.float32


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_tensor_bfloat16_and_chalf_are_type_errors_as_module_bfloat16(device):
    x = mg.ones(2, device=device, requires_grad=True)
    with pytest.raises(TypeError, match="bfloat16 is not offered.*use float32"):
        x.bfloat16()  # (an AttributeError before: the method was missing)
    with pytest.raises(TypeError, match="complex32 is not offered.*use complex64"):
        x.chalf()


def test_module_bfloat16_is_refused_as_before():
    with pytest.raises(TypeError, match="no bfloat16"):
        mg.nn.Linear(2, 2).bfloat16()
