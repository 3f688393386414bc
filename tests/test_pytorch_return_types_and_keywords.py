"""PyTorch's spellings that the engine refused or answered in another type (torch 2.13):

- ``torch.rand(size=(2,))`` and ``torch.randn(size=...)``: ``size=`` names the shape, as for
  ``zeros``/``ones``/``empty``/``full``/``randint`` (the engine's ``rand``/``randn`` raised TypeError);
- ``torch.ldexp(tensor([True, False]), tensor([True, False]))`` is ``[2., 0.]`` (float32): a bool
  exponent beside an integer or bool ``x`` counts 0 or 1; beside a floating ``x`` PyTorch has no
  kernel ("ldexp_cpu_exp" not implemented for 'Bool');
- ``x.split``, ``x.chunk``, ``torch.chunk``, ``torch.split(x, 2, dim=0)``, ``split_with_sizes``
  return tuples (the engine's were lists);
- ``torch.svd`` and ``x.svd()`` return ``torch.return_types.svd`` with ``.U``, ``.S``, ``.V``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.testing import gradcheck


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["rand", "randn"])
def test_rand_and_randn_take_size(name, dtype, device):
    fn = getattr(mg, name)
    mg.manual_seed(3)
    by_size = fn(size=(2, 3), dtype=dtype, device=device)
    mg.manual_seed(3)
    by_shape = fn(2, 3, dtype=dtype, device=device)
    assert by_size.shape == (2, 3) and by_size.dtype == dtype and by_size.device == by_shape.device
    np.testing.assert_array_equal(by_size.numpy(), by_shape.numpy())
    assert fn(size=[4]).shape == (4,) and fn(size=()).shape == ()
    with pytest.raises(TypeError, match="either a shape or size="):
        fn(2, size=(2,))


# (x, exponent, torch.ldexp's answer, float32): a bool exponent beside a bool or integer x
_LDEXP_BOOL = [([True, False], [True, False], [2.0, 0.0]), ([True], [True], [2.0]),
               ([1, 2], [True, False], [2.0, 2.0]), ([True, False], [1, 2], [2.0, 0.0])]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("x, exponent, want", _LDEXP_BOOL)
def test_ldexp_takes_a_bool_exponent_beside_an_integer_x(x, exponent, want, device):
    out = mg.ldexp(mg.tensor(x, device=device), mg.tensor(exponent, device=device))
    assert out.dtype == mg.float32 and out.tolist() == want


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_ldexp_takes_a_bool_exponent_beside_a_complex_x(dtype):
    """PyTorch's complex ldexp is ``x * 2**e``, a bool ``e`` counting 0 or 1 (torch.ldexp's values);
    the engine refused it as it refuses one beside a real floating ``x``.  Found running PyTorch's
    binary ufunc tests against the engine dtype by dtype."""
    x = mg.tensor([1 + 2j, -3j], dtype=dtype)
    out = mg.ldexp(x, mg.tensor([True, False]))
    assert out.dtype == dtype and out.tolist() == [2 + 4j, -3j]
    assert x.ldexp(mg.tensor(True)).tolist() == [2 + 4j, -6j]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ldexp_refuses_a_bool_exponent_beside_a_floating_x(dtype):
    with pytest.raises(NotImplementedError, match="ldexp_cpu_exp"):
        mg.ldexp(mg.tensor([1.5, 2.0], dtype=dtype), mg.tensor([True, False]))
    x = mg.tensor([1.5, 2.0], dtype=dtype, requires_grad=True)
    leaf = mg.tensor([1.5, 2.0], dtype="float64", requires_grad=True)
    assert gradcheck(lambda t: mg.ldexp(t, mg.tensor([1, 2])), [leaf])
    (g,) = mg.grad(mg.ldexp(x, mg.tensor([1, 2])).sum(), [x])
    assert g.dtype == dtype and g.tolist() == [2.0, 4.0]


_PIECES = {
    "x.split": lambda x: x.split(2),
    "x.split_sizes": lambda x: x.split([1, 3]),
    "x.chunk": lambda x: x.chunk(2),
    "mg.chunk": lambda x: mg.chunk(x, 3),
    "mg.split_dim": lambda x: mg.split(x, 2, dim=0),
    "mg.split_size_or_sections": lambda x: mg.split(x, split_size_or_sections=3),
    "mg.split_with_sizes": lambda x: mg.split_with_sizes(x, [2, 2]),
    "x.split_with_sizes": lambda x: x.split_with_sizes([3, 1]),
    "x.unbind": lambda x: x.unbind(),
    "x.tensor_split": lambda x: x.tensor_split(3),
    "mg.hsplit": lambda x: mg.hsplit(x, 2),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(_PIECES))
def test_pytorchs_splits_return_tuples(name, dtype, device):
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=dtype, device=device, requires_grad=True)
    pieces = _PIECES[name](x)
    assert type(pieces) is tuple and all(p.dtype == dtype for p in pieces)
    np.testing.assert_array_equal(np.concatenate([p.detach().numpy().reshape(-1) for p in pieces]), [1, 2, 3, 4])
    (g,) = mg.grad(sum((i + 1) * p.sum() for i, p in enumerate(pieces)), [x])
    assert g.shape == (4,) and g.dtype == dtype


def test_numpys_split_stays_a_list():
    assert type(mg.split(mg.arange(4.0), 2)) is list  # np.split(np.arange(4.), 2): NumPy's list


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_svd_returns_u_s_v_by_name(dtype, device):
    a = np.array([[3.0, 1.0], [1.0, 2.0], [0.5, -1.0]])
    x = mg.tensor(a, dtype=dtype, device=device)
    for out in (mg.svd(x), x.svd(), mg.svd(x, some=False), mg.svd(x, compute_uv=False)):
        u, s, v = out
        assert out.U is u and out.S is s and out.V is v and type(out) is mg.return_types.svd
        assert s.dtype == dtype
    u, s, v = mg.svd(x)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, a, rtol=1e-5, atol=1e-5)
    assert mg.svd(x, compute_uv=False).V.shape == (2, 2)


def test_finfo_answers_python_numbers_and_the_dtypes_name():
    # torch 2.13: type(torch.finfo(torch.float32).eps) is float, .dtype is 'float32'; NumPy's finfo
    # gave numpy.float32, which json.dumps refuses
    import json

    f = mg.finfo(mg.float32)
    assert all(type(getattr(f, k)) is float for k in ("eps", "max", "min", "tiny", "smallest_normal", "resolution"))
    assert (f.bits, f.eps, f.dtype) == (32, 2.0 ** -23, "float32")
    assert json.loads(json.dumps({"eps": f.eps})) == {"eps": 2.0 ** -23}
    assert mg.finfo(mg.float16).eps == 2.0 ** -10 and mg.finfo(mg.complex128).dtype == "float64"
    assert mg.finfo() == mg.finfo(mg.get_default_dtype())
    assert repr(f) == ("finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, "
                       "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)")
