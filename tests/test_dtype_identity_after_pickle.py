"""A dtype that came through pickle or deepcopy is NumPy's own instance again once it meets the engine.

NumPy unpickles a dtype (and an array's dtype) as a new object, equal to ``numpy.dtype("float32")`` but
not it, and the engine tests dtypes by identity on its fast paths (``dtype is HALF``: a float16 tensor
times a number is computed in float32, as PyTorch's) -- so an unpickled float16 tensor took the float16
path, and ``t.dtype is mg.float32`` was False where PyTorch users write ``x.dtype is torch.float32``.
Found by a probe of PyTorch's test_torch.py (test_pickle_dtype).
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)


def _round_trip(obj):
    return pickle.loads(pickle.dumps(obj))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", ["float16", "float32", "float64", "int64", "bool", "complex64"])
def test_a_tensor_through_pickle_or_deepcopy_has_the_dtype_itself(device, name):
    dtype = getattr(mg, name)
    x = mg.ones(3, dtype=dtype, device=device)
    for back in (_round_trip(x), copy.deepcopy(x)):
        assert back.dtype is dtype and back._data.dtype is dtype


@pytest.mark.parametrize("make", [mg.tensor, mg.as_tensor, mg.from_numpy])
def test_an_unpickled_array_becomes_a_tensor_of_the_dtype_itself(make):
    a = _round_trip(np.arange(3, dtype=np.float32))
    assert a.dtype is not np.dtype("float32")  # (NumPy's: the reason for this test)
    assert make(a).dtype is mg.float32


def test_an_unpickled_dtype_given_as_dtype_is_the_dtype_itself():
    odd = _round_trip(mg.float16)
    assert odd == mg.float16 and odd is not mg.float16
    assert mg.zeros(2, dtype=odd).dtype is mg.float16
    assert mg.ones(2).to(odd).dtype is mg.float16


def test_an_unpickled_float16_tensor_times_a_number_is_the_fresh_tensors_bits():
    fresh = mg.tensor(np.array([0.1, 1.7, 3.3], np.float16), requires_grad=True)
    back = _round_trip(fresh)
    assert back.requires_grad
    np.testing.assert_array_equal((back * 1.0001).numpy().view(np.uint16), (fresh * 1.0001).numpy().view(np.uint16))


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", ["float16", "float32", "int64", "complex64", "bool"])
def test_mg_save_and_load_give_the_dtype_itself(device, name):
    # the snapshot format's own round trip (msgpack bytes, not pickle) keeps identity too
    import io

    dtype = getattr(mg, name)
    buffer = io.BytesIO()
    mg.save({"t": mg.ones(3, dtype=dtype, device=device)}, buffer)
    buffer.seek(0)
    assert mg.load(buffer, map_location=device)["t"].dtype is dtype


def test_an_unpickled_tensor_under_checkpoint_and_grad_matches_the_fresh_one_bitwise():
    from minigrad_ckpt.checkpoint import checkpoint

    fresh = mg.tensor(np.array([0.1, 1.7, 3.3], np.float16), requires_grad=True)
    back = _round_trip(fresh)

    def f(x):
        return (mg.tanh(x * 1.0001) * 3.0).sum()

    for x in (fresh, back):
        checkpoint(f, x).backward()
    np.testing.assert_array_equal(back.grad.numpy().view(np.uint16), fresh.grad.numpy().view(np.uint16))
    g_fresh, g_back = mg.func.grad(f)(fresh.detach()), mg.func.grad(f)(back.detach())
    np.testing.assert_array_equal(g_back.numpy().view(np.uint16), g_fresh.numpy().view(np.uint16))
