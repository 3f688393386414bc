"""Tensor's random fills in place (``normal_``, ``uniform_``, ``bernoulli_``, ``exponential_``,
``geometric_``, ``log_normal_``, ``cauchy_``, ``random_``): PyTorch's laws, arguments and errors, the
in-place rules, the generator, and checkpoint replay.

torchvision's ViT builds its position embedding as ``torch.empty(1, n, d).normal_(std=0.02)``; the
names did not exist here (an AttributeError). The laws are checked by their moments on large
samples (the engine's generator is not PyTorch's, so values differ but laws agree).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

N = 200_000


def sample(method: str, *args, dtype=mg.float64, **kwargs) -> np.ndarray:
    mg.manual_seed(1)
    x = mg.empty(N, dtype=dtype)
    out = getattr(x, method)(*args, **kwargs)
    assert out is x
    return x.numpy().astype(np.float64)


@pytest.mark.parametrize("method, args, kwargs, mean, var", [
    ("normal_", (), {}, 0.0, 1.0),
    ("normal_", (2.0, 3.0), {}, 2.0, 9.0),
    ("normal_", (), {"std": 0.02}, 0.0, 0.0004),
    ("uniform_", (), {}, 0.5, 1 / 12),
    ("uniform_", (-1.0, 3.0), {}, 1.0, 16 / 12),
    ("uniform_", (), {"from": -2.0, "to": 2.0}, 0.0, 16 / 12),
    ("bernoulli_", (0.3,), {}, 0.3, 0.21),
    ("exponential_", (2.0,), {}, 0.5, 0.25),
    ("geometric_", (0.25,), {}, 4.0, 0.75 / 0.0625),
    ("log_normal_", (0.0, 0.5), {}, math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
    ("random_", (3, 7), {}, 4.5, (16 - 1) / 12),
    ("random_", (10,), {}, 4.5, (100 - 1) / 12),
])
def test_each_fill_draws_pytorchs_law(method, args, kwargs, mean, var):
    s = sample(method, *args, **kwargs)
    assert abs(s.mean() - mean) < 6 * math.sqrt(var / N)
    assert abs(s.var() - var) < 0.03 * var


def test_supports_and_the_cauchy_median():
    assert set(np.unique(sample("bernoulli_", 0.5))) == {0.0, 1.0}
    g = sample("geometric_", 0.5)
    assert g.min() == 1.0 and np.all(g == np.round(g))
    r = sample("random_", 3, 7)
    assert set(np.unique(r)) == {3.0, 4.0, 5.0, 6.0}
    u = sample("uniform_", -1.0, 3.0, dtype=mg.float32)
    assert -1.0 <= u.min() and u.max() < 3.0
    c = sample("cauchy_", 1.0, 2.0)
    assert abs(np.median(c) - 1.0) < 0.03 and abs(np.quantile(c, 0.75) - 3.0) < 0.05  # median + sigma


def test_random_without_bounds_covers_the_dtype():
    mg.manual_seed(0)
    assert mg.empty(1000, dtype=mg.uint8).random_().max().item() > 200
    assert set(mg.empty(100, dtype=mg.bool).random_().tolist()) == {False, True}
    f = mg.empty(1000, dtype=mg.float32).random_()
    assert float(f.max()) <= 2 ** 24 and np.all(f.numpy() == np.round(f.numpy())) and float(f.max()) > 2 ** 20


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_dtype_shape_and_device_are_kept(dtype):
    for method, args in [("normal_", ()), ("uniform_", ()), ("bernoulli_", ()), ("exponential_", ()),
                         ("geometric_", (0.5,)), ("log_normal_", ()), ("cauchy_", ()), ("random_", (5,))]:
        x = mg.empty(3, 4, dtype=dtype)
        getattr(x, method)(*args)
        assert x.dtype == dtype and x.shape == (3, 4)
        s = mg.empty(2, 3, dtype=dtype, device="strict")
        getattr(s, method)(*args)
        assert s.device == mg.device("strict") and s.dtype == dtype
    ints = mg.zeros(4, dtype=mg.int64)
    assert ints.bernoulli_(1.0).tolist() == [1, 1, 1, 1] and ints.dtype == mg.int64


def test_the_generator_decides_the_values():
    g = mg.Generator().manual_seed(7)
    a = mg.empty(5).normal_(generator=g)
    b = mg.empty(5).normal_(generator=mg.Generator().manual_seed(7))
    assert a.tolist() == b.tolist()
    mg.manual_seed(3)
    c = mg.empty(5).uniform_()
    mg.manual_seed(3)
    assert mg.empty(5).uniform_().tolist() == c.tolist()
    assert mg.empty(5).uniform_().tolist() != c.tolist()


def test_bernoulli_takes_a_tensor_of_probabilities():
    mg.manual_seed(0)
    p = mg.tensor([0.0, 1.0, 0.0, 1.0]).reshape(2, 2)
    assert mg.empty(2, 2).bernoulli_(p).tolist() == [[0.0, 1.0], [0.0, 1.0]]


@pytest.mark.parametrize("call, error", [
    (lambda: mg.zeros(3, dtype=mg.int64).normal_(), RuntimeError),
    (lambda: mg.zeros(3, dtype=mg.int64).uniform_(), RuntimeError),
    (lambda: mg.zeros(3).normal_(0.0, -1.0), RuntimeError),
    (lambda: mg.zeros(3).uniform_(2.0, 1.0), RuntimeError),
    (lambda: mg.zeros(3).bernoulli_(1.5), RuntimeError),
    (lambda: mg.zeros(3).exponential_(0.0), RuntimeError),
    (lambda: mg.zeros(3).geometric_(1.5), RuntimeError),
    (lambda: mg.zeros(3).random_(5, 5), RuntimeError),
    (lambda: mg.zeros(3).uniform_(0.0, 1.0, **{"to": 2.0}), TypeError),
])
def test_bad_arguments_are_pytorchs_errors(call, error):
    with pytest.raises(error):
        call()


def test_the_in_place_rules_hold():
    w = mg.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        w.normal_()
    with mg.no_grad():
        w.normal_()
    assert w.requires_grad and w.is_leaf and np.all(w.detach().numpy() != 0)
    base = mg.zeros(2, 3)
    base[0].uniform_(5.0, 6.0)  # a view: the base sees the write
    assert np.all(base.numpy()[0] >= 5.0) and np.all(base.numpy()[1] == 0.0)
    v0 = base._version
    base.normal_()
    assert base._version > v0


def test_a_fill_on_the_tape_passes_no_gradient_to_what_it_overwrites():
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y[1:].normal_()
    (y * y).sum().backward()
    assert x.grad[1:].tolist() == [0.0, 0.0] and x.grad[0].item() == 8.0


def test_a_fill_inside_a_checkpoint_replays_bit_for_bit():
    def block(x):
        h = mg.tanh(x @ w)
        noise = mg.empty_like(h).normal_(std=0.1)
        return (h + noise) * h

    def run(checkpointed):
        mg.manual_seed(5)
        x = mg.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
        out = mg.checkpoint.checkpoint(block, x) if checkpointed else block(x)
        out.sum().backward()
        return out.detach().numpy(), x.grad.numpy(), w.grad.numpy()

    w = mg.tensor(np.linspace(0.5, -0.5, 8).reshape(4, 2), requires_grad=True)
    plain = run(False)
    w.grad = None
    ckpt = run(True)
    for a, b in zip(plain, ckpt):
        np.testing.assert_array_equal(a, b)


def test_vits_position_embedding_idiom():
    mg.manual_seed(0)
    pos = mg.nn.Parameter(mg.empty(1, 17, 32).normal_(std=0.02))
    assert isinstance(pos, mg.nn.Parameter) and pos.requires_grad and pos.shape == (1, 17, 32)
    assert 0.01 < float(pos.std()) < 0.03


# -- bounds and dtypes, as PyTorch's (torch 2.13) ---------------------------------------------------

@pytest.mark.parametrize("dtype, args, error", [
    (mg.uint8, (0, 257), "to - 1 is out of bounds"), (mg.uint8, (-1, 1), "from is out of bounds"),
    (mg.int8, (-129, 0), "from is out of bounds"), (mg.int8, (0, 300), "to - 1 is out of bounds"),
    (mg.int32, (0, 2 ** 31 + 1), "to - 1 is out of bounds"), (mg.bool, (0, 3), "to - 1 is out of bounds"),
    (mg.bool, (10,), "to - 1 is out of bounds"), (mg.float16, (-65505, 0), "from is out of bounds"),
    (mg.float16, (2 ** 31,), "to - 1 is out of bounds")])
def test_random_bounds_outside_the_dtype_are_pytorchs_error(dtype, args, error):
    # they wrapped into the dtype (uint8's random_(0, 257) drew 0..255, float16's random_(2**31) inf)
    x = mg.zeros(4, dtype=dtype)
    with pytest.raises(RuntimeError, match=error):
        x.random_(*args)
    assert x.tolist() == [0, 0, 0, 0]


@pytest.mark.parametrize("dtype, args, low, high", [
    (mg.uint8, (0, 256), 0, 255), (mg.int8, (-128, 128), -128, 127), (mg.bool, (0, 2), 0, 1),
    (mg.float16, (0, 65505), 0, 65504), (mg.int32, (0, 2 ** 31), 0, 2 ** 31 - 1), (mg.float16, (), 0, 2 ** 11)])
def test_random_bounds_at_the_edges_of_the_dtype_draw(dtype, args, low, high):
    x = mg.zeros(5000, dtype=dtype).random_(*args)
    values = x.numpy().astype(np.float64)
    assert low <= values.min() and values.max() <= high and np.isfinite(values).all()


@pytest.mark.parametrize("bound", [1.5, 2.0, True])
def test_random_bounds_are_integers(bound):
    # torch 2.13: TypeError "random_() received an invalid combination of arguments" (1.5 drew zeros here)
    with pytest.raises(TypeError, match="must be int"):
        mg.zeros(3).random_(bound)
    with pytest.raises(TypeError, match="must be int"):
        mg.zeros(3).random_(0, bound if bound is not True else 2.5)
    assert mg.zeros(3).random_(mg.tensor(3)).max().item() <= 2  # a 0-d integer tensor is an int


@pytest.mark.parametrize("p", [[0.5, 1.5], [-0.1, 0.5], [float("nan"), 0.5]])
def test_bernoulli_refuses_a_probability_tensor_outside_0_1(p):
    # torch 2.13: RuntimeError "Expected p_in >= 0 && p_in <= 1 to be true" (it drew 1s and 0s here)
    x = mg.zeros(2)
    with pytest.raises(RuntimeError, match="in \\[0, 1\\]"):
        x.bernoulli_(mg.tensor(p))


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_float16_uniforms_stay_below_one(device):
    # a float32 draw rounded to float16 was 1.0 for about 1 in 4096: bernoulli_(1.0) of float16 drew 0s,
    # geometric_ of float16 inf, and rand an excluded value (torch 2.13: max 0.9995)
    mg.manual_seed(0)
    u = mg.rand(100_000, dtype=mg.float16, device=device)
    assert u.max().item() < 1.0 and u.min().item() >= 0.0
    assert abs(u.float().mean().item() - 0.5) < 0.01
    x = mg.zeros(100_000, dtype=mg.float16, device=device)
    assert x.bernoulli_(mg.ones(1, device=device)).min().item() == 1.0
    assert x.geometric_(0.5).max().item() < 100
    assert x.uniform_(2, 3).max().item() < 3.0


@pytest.mark.parametrize("dtype", [mg.int64, mg.uint8, mg.bool])
@pytest.mark.parametrize("method, args", [("uniform_", ()), ("normal_", ()), ("log_normal_", ()),
                                          ("exponential_", ()), ("cauchy_", ())])
def test_float_laws_of_an_integer_tensor_are_pytorchs_not_implemented(dtype, method, args):
    # torch 2.13: NotImplementedError '"normal_kernel_cpu" not implemented for 'Long''; a RuntimeError too
    with pytest.raises(NotImplementedError, match="floating point"):
        getattr(mg.zeros(3, dtype=dtype), method)(*args)


def test_geometric_of_a_bool_tensor_is_not_implemented():
    # torch 2.13: NotImplementedError '"geometric_cpu" not implemented for 'Bool'' (every draw was True here)
    with pytest.raises(NotImplementedError, match="bool"):
        mg.zeros(3, dtype=mg.bool).geometric_(0.5)


@pytest.mark.parametrize("dtype, low, high", [(mg.float32, 1000, 1001), (mg.float16, 100, 101), (mg.float16, 2, 3),
                                              (mg.float64, 2 ** 52, 2 ** 52 + 1)])
def test_uniform_draws_stay_below_to_where_the_dtype_rounds(dtype, low, high):
    # torch 2.13: float32 uniform_(1000, 1001) never draws 1001.0 (its [from, to)); here 1 in 30000 did
    mg.manual_seed(0)
    x = mg.zeros(300_000, dtype=dtype).uniform_(low, high)
    assert x.max().item() < high and x.min().item() >= low
    assert mg.zeros(3, dtype=dtype).uniform_(2, 2).tolist() == [2.0, 2.0, 2.0]  # from == to: every draw is from


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype, low, high, words", [
    (mg.float16, 0.0, 1e6, "to is out of bounds for c10::Half"),
    (mg.float16, -7e4, 0.0, "from is out of bounds for c10::Half"),
    (mg.float32, 0.0, 1e39, "to is out of bounds for float"),
    (mg.float32, math.nan, 1.0, "from is out of bounds for float"),
    (mg.float16, -6e4, 6e4, r"to-from <= std::numeric_limits<Half>::max\(\)"),
    (mg.float32, -3e38, 3e38, r"to-from <= std::numeric_limits<Float>::max\(\)"),
    (mg.float64, -1.7e308, 1.7e308, r"to-from <= std::numeric_limits<Double>::max\(\)"),
])
def test_uniform_bounds_outside_the_dtype_are_pytorchs_error(dtype, low, high, words, device):
    # torch 2.13's checks (the messages are its); the engine clamped float16's draws of
    # uniform_(0, 1e6) to 65472, drew inf for uniform_(-3e38, 3e38) of float32 and NaN for a NaN bound
    t = mg.zeros(4, dtype=dtype, device=device)
    with pytest.raises(RuntimeError, match=words):
        t.uniform_(low, high)
    assert t.tolist() == [0.0] * 4
