"""``mg.poisson(rates, generator=None)``, PyTorch's ``torch.poisson`` (missing before: an
AttributeError): a count per rate in the rates' shape and floating dtype, drawn by the routine
``distributions.Poisson`` samples with (moved down to ``functional/poisson.py``, its draws bitwise
the same: ``tests/data/poisson_draws.npz`` was written before the move); requiring grad where the
rates do, with a zero gradient (PyTorch's ``PoissonBackward0``); PyTorch's refusals: a negative or
NaN rate ("invalid Poisson rate, expected rate to be non-negative", a ``RuntimeError``), an integer,
bool or complex tensor ('"poisson_cpu" not implemented for 'Long'', a ``NotImplementedError``), a
list (``TypeError``).  An infinite rate counts inf (PTRS never accepted a draw of it: the sampler
looped; PyTorch answers -9.2e18, int64's minimum).

Expected answers: torch 2.13 on the same calls (``torch.poisson(torch.tensor([-1.]))``, ...).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from make_poisson_draws import draws  # noqa: E402

RATES = [0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 1000.0]
SEAMS = [("cpu", mg.float32), ("cpu", mg.float64), ("strict", mg.float64), ("strict-f32", mg.float32)]


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


def test_the_distributions_draw_bitwise_as_before_the_move():
    before = np.load(DATA / "poisson_draws.npz")
    now = draws()
    assert sorted(now) == sorted(before.files)
    for name in before.files:
        assert now[name].dtype == before[name].dtype, name
        np.testing.assert_array_equal(now[name], before[name], err_msg=name)


@pytest.mark.parametrize("device, dtype", SEAMS, ids=str)
def test_the_function_draws_what_the_distribution_draws(device, dtype):
    rate = mg.tensor([RATES, RATES[::-1]], dtype=dtype, device=device)
    mg.manual_seed(7)
    got = mg.poisson(rate)
    mg.manual_seed(7)
    want = mg.distributions.Poisson(rate).sample()
    assert got.dtype == dtype and got.shape == rate.shape and got.device == rate.device
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert bool((got == got.round()).all()) and bool((got >= 0).all())


def test_generator_argument_and_the_default_generator():
    rate = mg.full((6,), 4.0)
    mg.manual_seed(0)
    state = mg.get_rng_state()
    first = mg.poisson(rate, generator=mg.Generator().manual_seed(3))
    again = mg.poisson(rate, generator=mg.Generator().manual_seed(3))
    np.testing.assert_array_equal(first.numpy(), again.numpy())
    assert mg.get_rng_state() == state  # a generator of its own leaves the engine's alone
    with pytest.raises(TypeError, match="generator"):
        mg.poisson(rate, generator=3)


def test_shapes_dtypes_and_the_mean():
    assert mg.poisson(mg.tensor(3.0)).shape == () and mg.poisson(mg.zeros(0, 2)).shape == (0, 2)
    assert mg.poisson(mg.tensor([1.0, 2.0], dtype=mg.float16)).dtype == mg.float16
    assert mg.poisson(mg.zeros(4)).tolist() == [0.0] * 4
    assert mg.poisson(mg.tensor([1.0, float("inf")])).tolist()[1] == float("inf")
    mg.manual_seed(1)
    for rate in (2.5, 40.0):
        counts = mg.poisson(mg.full((20000,), rate, dtype=mg.float64)).numpy()
        assert abs(counts.mean() - rate) < 5 * np.sqrt(rate / counts.size)
        assert abs(counts.var() / rate - 1) < 0.05


def test_pytorchs_refusals():
    for bad in ([-1.0, 2.0], [float("nan")]):
        with pytest.raises(RuntimeError) as caught:
            mg.poisson(mg.tensor(bad))
        assert str(caught.value) == "invalid Poisson rate, expected rate to be non-negative"
    for bad, kind in ((mg.tensor([1, 2]), "Long"), (mg.tensor([True]), "Bool"),
                      (mg.tensor([1 + 1j]), "ComplexFloat"), (mg.tensor([1], dtype=mg.int32), "Int")):
        with pytest.raises(NotImplementedError) as caught:
            mg.poisson(bad)
        assert str(caught.value) == f"\"poisson_cpu\" not implemented for '{kind}'"
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        mg.poisson([1.0, 2.0])


@pytest.mark.parametrize("device, dtype", SEAMS, ids=str)
def test_the_gradient_is_zero_as_pytorchs(device, dtype):
    rate = mg.tensor([1.0, 12.0], dtype=dtype, device=device, requires_grad=True)
    counts = mg.poisson(rate)
    assert counts.requires_grad and counts.grad_fn is not None
    (counts * mg.tensor([3.0, 4.0], dtype=dtype, device=device)).sum().backward()
    assert rate.grad.tolist() == [0.0, 0.0] and rate.grad.dtype == dtype


def test_under_transforms_and_checkpoint():
    rate = mg.tensor([2.0, 15.0], dtype=mg.float64)
    assert mg.func.grad(lambda r: (mg.poisson(r) * r).sum())(rate).shape == (2,)
    assert mg.func.grad(lambda r: mg.poisson(r).sum())(rate).tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="randomness"):  # vmap's default, as PyTorch's: say how to draw
        mg.func.vmap(mg.poisson)(mg.full((3, 2), 5.0))
    assert mg.func.vmap(mg.poisson, randomness="different")(mg.full((3, 2), 5.0)).shape == (3, 2)
    x = mg.tensor([3.0, 20.0], requires_grad=True)
    mg.manual_seed(4)
    y = checkpoint(lambda r: mg.poisson(r) * r, x)
    y.sum().backward()  # the replay reads the kept draw: the gradient is the same counts
    np.testing.assert_array_equal(x.grad.numpy(), (y / x).detach().numpy())
