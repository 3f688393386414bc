"""einops on engine tensors (``minigrad_ckpt/einops_backend.py``), checked against einops on NumPy arrays.

Before the backend, every einops call on an engine tensor stopped with "Tensor type unknown to einops"
(lucidrains-style code: ``rearrange``/``reduce``/``repeat``/``einsum``, ``Rearrange`` layers). einops is
optional: these tests skip where it is not installed.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

einops = pytest.importorskip("einops")
from einops import einsum, pack, rearrange, reduce, repeat, unpack  # noqa: E402

from minigrad_ckpt.einops_backend import EinMix, MinigradBackend, Rearrange, Reduce  # noqa: E402

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4, 6))
Y = RNG.standard_normal((2, 5, 6))

CALLS = {  # each runs on a NumPy array and on an engine tensor of the same values
    "split and merge": lambda x: rearrange(x, "b c (h p) w -> b (c h) p w", p=2),
    "patches": lambda x: rearrange(x, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=3),
    "ellipsis": lambda x: rearrange(x, "b ... w -> w ... b"),
    "mean": lambda x: reduce(x, "b c h w -> b c", "mean"),
    "max pool": lambda x: reduce(x, "b c (h 2) (w 2) -> b c h w", "max"),
    "min": lambda x: reduce(x, "b c h w -> c", "min"),
    "sum keeping an axis": lambda x: reduce(x, "b c h w -> b 1 h w", "sum"),
    "prod": lambda x: reduce(x, "b c h w -> b w", "prod"),
    "new axis": lambda x: repeat(x, "b c h w -> b c h w r", r=3),
    "tile": lambda x: repeat(x, "b c h w -> b (r c) h w", r=2),
    "upsample": lambda x: repeat(x, "b c h w -> b c (h 2) (w 2)"),
}


@pytest.mark.parametrize("name", CALLS)
def test_rearrange_reduce_repeat_give_einops_numpy_answer_and_keep_the_dtype(name):
    want = CALLS[name](X)
    for dtype in (mg.float64, mg.float32):
        got = CALLS[name](mg.tensor(X, dtype=dtype))
        assert isinstance(got, mg.Tensor) and got.dtype == dtype and got.shape == want.shape
        tol = dict(rtol=1e-5, atol=1e-6) if dtype == mg.float32 else dict(rtol=1e-13)
        np.testing.assert_allclose(got.numpy(), want, **tol)


def test_einsum_pack_and_unpack():
    pattern = "b c h w, b k w -> b c h k"
    np.testing.assert_allclose(einsum(mg.tensor(X), mg.tensor(Y), pattern).numpy(), einsum(X, Y, pattern),
                               rtol=1e-13)
    packed, shapes = pack([mg.tensor(X), mg.tensor(Y)], "b *")
    want, _ = pack([X, Y], "b *")
    assert isinstance(packed, mg.Tensor) and shapes == [(3, 4, 6), (5, 6)]
    np.testing.assert_array_equal(packed.numpy(), want)
    x, y = unpack(packed, shapes, "b *")
    np.testing.assert_array_equal(x.numpy(), X)
    np.testing.assert_array_equal(y.numpy(), Y)


def test_any_and_all_of_booleans_and_the_refused_mean_of_integers():
    bits = X > 0
    np.testing.assert_array_equal(reduce(mg.tensor(bits), "b c h w -> b", "any").numpy(),
                                  reduce(bits, "b c h w -> b", "any"))
    np.testing.assert_array_equal(reduce(mg.tensor(bits), "b c h w -> w", "all").numpy(),
                                  reduce(bits, "b c h w -> w", "all"))
    with pytest.raises(NotImplementedError, match="reduce_mean is not available for non-floating tensors"):
        reduce(mg.arange(6).reshape(2, 3), "a b -> a", "mean")  # einops' refusal, as on torch tensors


@pytest.mark.parametrize("name", ["patches", "mean", "max pool", "prod", "tile", "upsample"])
def test_gradients_through_einops_pass_gradcheck(name):
    x = mg.tensor(X[:, :, :4, :6], requires_grad=True)
    assert mg.autograd.gradcheck(lambda t: CALLS[name](t), (x,))


def test_gradients_through_einsum_pack_and_unpack():
    def f(x, y):
        packed, shapes = pack([x, y], "b *")
        u, v = unpack(packed * packed, shapes, "b *")
        return einsum(u, v, "b c h w, b k w -> b c h k")

    assert mg.autograd.gradcheck(f, (mg.tensor(X, requires_grad=True), mg.tensor(Y, requires_grad=True)))


def test_func_grad_vmap_and_jvp_over_rearrange():
    def f(x):
        return reduce(rearrange(x, "(a b) c -> a b c", a=2) ** 2, "a b c ->", "sum")

    x = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(mg.func.grad(f)(mg.tensor(x)).numpy(), 2 * x)
    batch = np.stack([x, -x, 3 * x])
    np.testing.assert_allclose(mg.func.vmap(mg.func.grad(f))(mg.tensor(batch)).numpy(), 2 * batch)
    out = mg.func.vmap(lambda t: rearrange(t, "(a b) c -> c a b", a=2))(mg.tensor(batch))
    np.testing.assert_array_equal(out.numpy(), rearrange(batch, "n (a b) c -> n c a b", a=2))
    _, tangent = mg.func.jvp(lambda t: repeat(t, "a c -> a c r", r=2), (mg.tensor(x),), (mg.ones(4, 3),))
    np.testing.assert_array_equal(tangent.numpy(), np.ones((4, 3, 2)))


def test_the_layers_are_engine_modules_with_einops_meaning():
    layer = Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=2, p2=3)
    assert isinstance(layer, mg.nn.Module)
    assert repr(layer) == "Rearrange('b c (h p1) (w p2) -> b (h w) (p1 p2 c)', p1=2, p2=3)"
    np.testing.assert_array_equal(layer(mg.tensor(X)).numpy(), CALLS["patches"](X))
    pool = Reduce("b c (h 2) (w 2) -> b c h w", "max")
    np.testing.assert_array_equal(pool(mg.tensor(X)).numpy(), CALLS["max pool"](X))
    model = mg.nn.Sequential(Rearrange("b c h w -> b (c h w)"), mg.nn.Linear(72, 4))
    assert model(mg.tensor(X, dtype=mg.float32)).shape == (2, 4)
    again = pickle.loads(pickle.dumps(layer))  # einops' layers pickle by their pattern
    np.testing.assert_array_equal(again(mg.tensor(X)).numpy(), CALLS["patches"](X))


def test_einmix_is_an_einsum_with_engine_parameters_in_einops_bounds():
    mg.manual_seed(0)
    mix = EinMix("b c h w -> b k h w", weight_shape="c k", bias_shape="k", c=3, k=5)
    assert sorted(dict(mix.named_parameters())) == ["bias", "weight"]
    assert isinstance(mix.weight, mg.nn.Parameter) and mix.weight.shape == (3, 5)
    assert mix.bias.shape == (1, 5, 1, 1)  # einops' bias broadcasts against the output, as on torch
    assert float(mix.weight.detach().abs().max()) <= 1.0 and float(mix.bias.detach().abs().max()) <= 3 ** -0.5
    x = mg.tensor(X, dtype=mg.float32, requires_grad=True)
    out = mix(x)
    w, b = mix.weight.detach().numpy(), mix.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), np.einsum("bchw,ck->bkhw", X, w) + b, rtol=1e-5, atol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(mix.bias.grad.numpy(), np.full((1, 5, 1, 1), 2 * 4 * 6), rtol=1e-6)
    np.testing.assert_allclose(mix.weight.grad.numpy(), np.repeat(X.sum(axis=(0, 2, 3))[:, None], 5, 1), rtol=1e-5)
    grouped = EinMix("b c (h p) w -> b c h q w", weight_shape="p q", p=2, q=3)  # with the pre/post rearranges
    assert grouped(mg.tensor(X, dtype=mg.float32)).shape == (2, 3, 2, 3, 6) and grouped.bias is None


def test_einops_finds_the_backend_by_itself():
    from einops._backends import get_backend

    backend = get_backend(mg.zeros(2))
    assert isinstance(backend, MinigradBackend) and backend.framework_name == "minigrad_ckpt"
    assert backend.layers().Rearrange is Rearrange


def test_without_einops_the_engine_imports_nothing_of_it():
    code = ("import sys; sys.modules['einops'] = None; import minigrad_ckpt; "
            "assert 'minigrad_ckpt.einops_backend' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_guide_for_pytorch_users_says_einops_works():
    page = " ".join((Path(__file__).resolve().parents[1] / "docs" / "from-pytorch.md").read_text().split())
    assert "`rearrange` (einops) is not offered" not in page  # what it said before the backend
    assert "einops' `rearrange` and its kin work on engine tensors where einops is installed" in page
    assert "from minigrad_ckpt.einops_backend import Rearrange, Reduce, EinMix" in page
