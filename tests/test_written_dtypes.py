"""The dtype of what the fill and scatter families write, and of in-place results: PyTorch's rules.

The expected values and errors are torch 2.13's for the same calls, e.g.
``torch.tensor([1, 2, 3]).masked_fill(torch.tensor([True, False, True]), 2.7)`` is
``tensor([2, 2, 2])`` (int64) and ``torch.tensor([1, 2, 3]).index_add(0, torch.tensor([0, 2]),
torch.tensor([0.5, 1.5]))`` raises "index_add_(): self (Long) and source (Float) must have the
same scalar type".  The engine promoted the first to float64 and truncated the second silently.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

MASK = [True, False, True]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("fill,expected,tensor_value", [
    (lambda x, v: x.masked_fill(mg.tensor(MASK, device=x.device), v), [2, 2, 2], True),
    (lambda x, v: mg.masked_fill(x, mg.tensor(MASK, device=x.device), v), [2, 2, 2], True),
    (lambda x, v: x.index_fill(0, mg.tensor([0, 2], device=x.device), v), [2, 2, 2], True),
    # scatter's positional tensor is src (refused unless of x's dtype), not a value
    (lambda x, v: x.scatter(0, mg.tensor([0, 2], device=x.device), v), [2, 2, 2], False),
    (lambda x, v: x.scatter(0, mg.tensor([0, 2], device=x.device), v, reduce="add"), [3, 2, 5], False),
])
def test_a_fill_value_is_written_in_the_tensors_dtype(fill, expected, tensor_value, device):
    x = mg.tensor([1, 2, 3], device=device)
    for value in (2.7, np.float64(2.7)) + ((mg.tensor(2.7, device=device),) if tensor_value else ()):
        out = fill(x, value)
        assert out.dtype == np.int64 and out.tolist() == expected
    assert fill(mg.tensor([True, False, True], device=device), 5).dtype == np.bool_
    assert fill(mg.tensor([1, 2, 3], device=device), -2.7).tolist()[0] in (-2, -1)  # C's cast, toward 0


@pytest.mark.parametrize("x,value,match", [
    (mg.tensor([1, 2, 3]), 2j, "imaginary part"),
    (mg.tensor([1.0, 2.0, 3.0]), mg.tensor(1j), "imaginary part"),
    (mg.tensor([1, 2, 3], dtype="uint8"), 300, "without overflow"),
    (mg.tensor([1, 2, 3], dtype="int8"), -300, "without overflow"),
    (mg.tensor([1, 2, 3]), float("nan"), "without overflow"),
    (mg.tensor([1.0, 2.0, 3.0]), 1e40, "without overflow"),
    (mg.tensor([1.0, 2.0, 3.0]), mg.tensor([2.5]), "0-dimensional"),
])
def test_a_fill_value_the_dtype_cannot_hold_is_refused(x, value, match):
    with pytest.raises(RuntimeError, match=match):
        x.masked_fill(mg.tensor(MASK), value)
    assert x.masked_fill(mg.tensor(MASK), float("inf") if x.dtype.kind == "f" else 7).dtype == x.dtype


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_a_wider_fill_tensor_keeps_the_tensors_dtype_and_gets_its_gradient(device):
    # torch: x float32, v = torch.tensor(2.5, dtype=float64, requires_grad=True): x.masked_fill(m, v)
    # is float32, and v.grad is 2.0 (two positions) in float64
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True, device=device)
    wide = "float64" if device == "cpu" else "float32"
    v = mg.tensor(2.5, dtype=wide, requires_grad=True, device=device)
    out = x.masked_fill(mg.tensor(MASK, device=device), v)
    assert out.dtype == np.float32
    gx, gv = mg.grad(out.sum(), [x, v])
    assert gx.tolist() == [0.0, 1.0, 0.0] and gv.item() == 2.0 and gv.dtype == np.dtype(wide)
    _, tangent = mg.func.jvp(lambda t: x.detach().masked_fill(mg.tensor(MASK, device=device), t),
                             (v.detach(),), (mg.ones_like(v),))
    assert tangent.tolist() == [1.0, 0.0, 1.0] and tangent.dtype == np.float32
    assert mg.tensor([1, 2, 3], device=device).masked_fill(mg.tensor(MASK, device=device), 2.7).tolist() == [2, 2, 2]


SOURCE_WRITES = {
    "index_add": lambda x, s: x.index_add(0, mg.tensor([0, 2]), s),
    "index_copy": lambda x, s: x.index_copy(0, mg.tensor([0, 2]), s),
    "index_reduce": lambda x, s: x.index_reduce(0, mg.tensor([0, 2]), s, "prod"),
    "scatter": lambda x, s: x.scatter(0, mg.tensor([0, 2]), s),
    "scatter_add": lambda x, s: x.scatter_add(0, mg.tensor([0, 2]), s),
    "scatter_reduce": lambda x, s: x.scatter_reduce(0, mg.tensor([0, 2]), s, "sum"),
    "index_put": lambda x, s: x.index_put((mg.tensor([0, 2]),), s),
    "put": lambda x, s: x.put(mg.tensor([0, 2]), s),
    "masked_scatter": lambda x, s: x.masked_scatter(mg.tensor(MASK), s),
}


@pytest.mark.parametrize("name", SOURCE_WRITES)
def test_a_source_tensor_of_another_dtype_is_refused(name):
    write = SOURCE_WRITES[name]
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        write(mg.tensor([1, 2, 3]), mg.tensor([0.5, 1.5]))  # int64 and float32: truncated before
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        write(mg.tensor([1.0, 2.0, 3.0]), mg.tensor([0.5, 1.5], dtype="float64"))
    same = write(mg.tensor([1, 2, 3]), mg.tensor([5, 6]))
    assert same.dtype == np.int64
    assert write(mg.tensor([1.0, 2.0, 3.0]), [5, 6]).dtype == np.float32  # a list: converted, nothing lost


def test_the_in_place_twins_refuse_too_and_leave_the_tensor_alone():
    x = mg.tensor([1, 2, 3])
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        x.index_add_(0, mg.tensor([0, 2]), mg.tensor([0.5, 1.5]))
    assert x.tolist() == [1, 2, 3]
    assert x.masked_fill_(mg.tensor(MASK), 2.7).tolist() == [2, 2, 2]


@pytest.mark.parametrize("dtype", ["float32", "complex64", "int64"])
def test_float_power_in_place_needs_a_double_tensor(dtype):
    # torch: "the base given to float_power_ has dtype Float but the operation's result requires dtype Double"
    x = mg.tensor([1, 2], dtype=dtype)
    with pytest.raises(RuntimeError, match="float_power_"):
        x.float_power_(2)
    assert x.tolist() == [1, 2]
    y = mg.tensor([1.0, 2.0], dtype="float64")
    assert y.float_power_(mg.tensor([2.0])).tolist() == [1.0, 4.0]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("write", [lambda x: x.add_(1.5), lambda x: x.sub_(mg.tensor([0.5, 0.5], device=x.device)),
                                   lambda x: x.mul_(1j), lambda x: x.div_(2)])
def test_in_place_arithmetic_that_cannot_keep_the_dtype_is_pytorchs_runtime_error(write, device):
    # torch.tensor([1, 2]).add_(1.5): "RuntimeError: result type Float can't be cast to the desired
    # output type Long"; the engine let NumPy's UFuncTypeError (a TypeError) through
    x = mg.tensor([1, 2], device=device)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        write(x)
    assert x.tolist() == [1, 2]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("write", [lambda x, c: x.sub_(c), lambda x, c: x.add_(c), lambda x, c: x.mul_(c),
                                   lambda x, c: x.div_(c)])
def test_a_recorded_in_place_write_refuses_a_complex_result_into_a_real_tensor(write, device):
    # torch 2.13, with x requiring grad: "result type ComplexDouble can't be cast to the desired output
    # type Double"; the recorded write had cast the result, dropping its imaginary part silently
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, device=device, requires_grad=True).clone()
    c = mg.tensor([1 + 1j, 2j], device=device)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type float64"):
        write(x, c)
    assert x.tolist() == [1.0, 2.0]
    leaf = mg.tensor([1.0, 2.0], device=device)  # the unrecorded write refused it already
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        write(leaf, c)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_setitem_through_an_index_array_needs_the_tensors_dtype(device):
    # torch: x = torch.tensor([1, 2, 3]); x[torch.tensor([0, 1])] = torch.tensor([2.7, 1.2]) raises "Index put
    # requires the source and destination dtypes match"; the engine truncated to [2, 1, 3] (and a complex
    # value into a float tensor lost its imaginary part). Basic indexing and a bool mask with one value
    # cast, as PyTorch's (copy_ and masked_fill).
    x = mg.tensor([1, 2, 3], device=device)
    refused = [(mg.tensor([0, 1], device=device), mg.tensor([2.7, 1.2], device=device)),
               ([0, 1], mg.tensor([2.7, 1.2], device=device)),
               (mg.tensor(MASK, device=device), mg.tensor([2.7, 1.2], device=device)),
               (mg.tensor([0], device=device), mg.tensor(2.7, device=device))]
    for index, value in refused:
        with pytest.raises(RuntimeError, match="dtypes match"):
            x[index] = value
    assert x.tolist() == [1, 2, 3]
    z = mg.tensor([1.0, 2.0], device=device)
    with pytest.raises(RuntimeError, match="dtypes match"):
        z[mg.tensor([0], device=device)] = mg.tensor([1j], device=device)
    x[0:2] = mg.tensor([2.7, 1.2], device=device)
    x[mg.tensor(MASK, device=device)] = mg.tensor([5.5], device=device)
    x[mg.tensor([1], device=device)] = mg.tensor([7], device=device)
    assert x.tolist() == [5, 7, 5]
