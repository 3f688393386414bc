"""``mg.func.vmap`` (and ``grad_and_value``, ``jacrev(chunk_size=)``, ``jacfwd(randomness=)``) as
``torch.func``'s.

Expected values are NumPy expressions of what torch 2.13 returned for the same program
(``torch.func.vmap(f, in_dims, out_dims)(*args)`` checked equal to them offline); the error
messages are torch 2.13's.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func
from minigrad_ckpt.checkpoint import checkpoint

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 3))
Z = RNG.standard_normal((4, 2, 3))


def t(a, dtype="float64"):
    return mg.tensor(np.asarray(a), dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_in_dims_and_out_dims_place_the_batch(dtype):
    z = t(Z, dtype)
    got = func.vmap(lambda a: a.exp(), in_dims=1, out_dims=-1)(z)   # torch: shape (4, 3, 2)
    assert got.shape == (4, 3, 2) and got.dtype == z.dtype
    np.testing.assert_allclose(got.numpy(), np.exp(Z.astype(dtype)).transpose(0, 2, 1), rtol=1e-6)
    mv = func.vmap(lambda m, v: m @ v, in_dims=(0, None))(z, t(X[0], dtype))
    np.testing.assert_allclose(mv.numpy(), Z @ X[0], rtol=1e-5)
    assert func.vmap(lambda a: a.sum(), in_dims=-1)(t(X)).shape == (3,)
    assert func.vmap(lambda a: a * 2)(mg.arange(3)).dtype == mg.int64
    assert mg.vmap is func.vmap  # torch.vmap


def test_pytrees_in_and_out():
    nt = collections.namedtuple("NT", "p q")
    x = t(X)
    got = func.vmap(lambda d: d["a"] * d["b"][0], in_dims=({"a": 0, "b": (None,)},))({"a": x, "b": (x[0],)})
    np.testing.assert_allclose(got.numpy(), X * X[0])
    out = func.vmap(lambda a: {"s": (a, [a * 2])}, out_dims={"s": (0, [1])})(x)
    assert out["s"][0].shape == (2, 3) and out["s"][1][0].shape == (3, 2)
    np.testing.assert_allclose(out["s"][1][0].numpy(), 2 * X.T)
    pair = func.vmap(lambda a: nt(a, a.sum()))(x)
    assert type(pair) is nt and pair.q.shape == (2,)
    listed = func.vmap(lambda pl: pl[0] * pl[1], in_dims=([0, None],))([x, x[1]])
    np.testing.assert_allclose(listed.numpy(), X * X[1])
    scaled = func.vmap(lambda a, s, k=1.0: a * s * k, in_dims=(0, None))(x, 2.0, k=t(X[0]))
    np.testing.assert_allclose(scaled.numpy(), X * 2 * X[0])


def test_outputs_that_do_not_depend_on_the_batch():
    x = t(X)
    np.testing.assert_array_equal(func.vmap(lambda a: mg.ones(2))(x).numpy(), np.ones((2, 2)))  # torch: expanded
    assert func.vmap(lambda a: mg.ones(2), out_dims=None)(x).shape == (2,)
    assert func.vmap(lambda a: (a, 3), out_dims=(0, None))(x)[1] == 3
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        func.vmap(lambda a: a, out_dims=None)(x)


def test_an_empty_batch():
    got = func.vmap(lambda a: (a * 2).sum(0, keepdim=True))(mg.ones(0, 3))   # torch: shape (0, 1)
    assert got.shape == (0, 1) and got.dtype == mg.float32
    assert func.vmap(lambda a: a * 2, out_dims=1)(mg.ones(0, 3)).shape == (3, 0)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: func.vmap(lambda a, b: a * b)(x, 2.0), ValueError,
     r"Got in_dim=0 for an input but the input is of type <class 'float'>"),
    (lambda x: func.vmap(lambda a, b: a)(x, None), ValueError, "input is of type <class 'NoneType'>"),
    (lambda x: func.vmap(lambda a, b: a * b)(x, mg.ones(3, 2)), ValueError,
     r"same size in the mapped dimension, got sizes \[2, 3\]"),
    (lambda x: func.vmap(lambda a: a, in_dims=2)(x), ValueError, "expected in_dim to satisfy -2 <= in_dim < 2"),
    (lambda x: func.vmap(lambda a: a, in_dims=None)(x), ValueError, "expected `in_dims` to be int or a"),
    (lambda x: func.vmap(lambda a, b: a, in_dims=[0, 0])(x, x), ValueError, "expected `in_dims` to be int"),
    (lambda x: func.vmap(lambda a, b: a, in_dims=(0,))(x, x), ValueError, "in_dims is not compatible"),
    (lambda x: func.vmap(lambda a: (a, a), out_dims=(0,))(x), ValueError, "out_dims is not compatible"),
    (lambda x: func.vmap(lambda a: 3)(x), ValueError, "must only return Tensors, got type <class 'int'>"),
    (lambda x: func.vmap(lambda a: None)(x), ValueError, "must only return Tensors"),
    (lambda x: func.vmap(lambda a: a * 2)(mg.tensor(1.0)), ValueError, "dimensionality 0"),
    (lambda x: func.vmap(lambda a: a, out_dims=2)(x), IndexError, "Dimension out of range"),
    (lambda x: func.vmap(lambda a: a, chunk_size=0)(x), ValueError, "chunk_size should be None or greater than 0"),
    (lambda x: func.vmap(lambda a: a, randomness="x")(x), RuntimeError, "Only allowed values for randomness"),
    (lambda x: func.vmap(lambda: x)(), ValueError, r"vmap\(<lambda>\)\(<inputs>\): got no inputs"),
    (lambda x: func.vmap(lambda a: x)(), ValueError, "got no inputs"),
    (lambda x: func.vmap(lambda a: x, (None,))(1), ValueError, "Expected at least one Tensor to vmap over"),
    (lambda x: func.vmap(lambda a: a, (None,))(x), ValueError, "Expected at least one Tensor to vmap over"),
    (lambda x: func.vmap(lambda a: a, out_dims="lol")(x), ValueError,
     "`out_dims` must be an int, None or a python collection of ints"),
    (lambda x: func.vmap(lambda a: a, out_dims=("lol",))(x), ValueError,
     "`out_dims` must be an int, None or a python collection of ints"),
])
def test_refusals_are_torchs(call, error, message):
    with pytest.raises(error, match=message):
        call(t(X))


def test_randomness_modes():
    x = mg.zeros(2, 50)
    mg.manual_seed(0)
    state = mg.get_rng_state()
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        func.vmap(lambda a: a + mg.rand(50))(x)
    assert mg.get_rng_state() == state  # the refused draw did not advance the generator
    same = func.vmap(lambda a: mg.nn.functional.dropout(a + 1, 0.5), randomness="same")(x).numpy()
    np.testing.assert_array_equal(same[0], same[1])
    after_same = mg.get_rng_state()
    mg.set_rng_state(state)
    mg.nn.functional.dropout(mg.ones(50), 0.5)
    assert mg.get_rng_state() == after_same  # "same": the generator moves as for one call
    different = func.vmap(lambda a: a + mg.rand(50), randomness="different")(x).numpy()
    assert (different[0] != different[1]).all()
    np.testing.assert_array_equal(func.vmap(lambda a: a, chunk_size=1)(t(X)).numpy(), X)


def _f(a):
    return (a.sin() * a).sum()


def _df(a):
    return np.sin(a) + a * np.cos(a)


def test_composes_with_the_other_transforms():
    x = t(X)
    np.testing.assert_allclose(func.vmap(func.grad(_f))(x).numpy(), _df(X), rtol=1e-12)
    np.testing.assert_allclose(func.grad(lambda a: func.vmap(_f)(a).sum())(x).numpy(), _df(X), rtol=1e-12)
    y, dy = func.vmap(lambda p, v: func.jvp(_f, (p,), (v,)))(x, 2 * x)
    np.testing.assert_allclose(dy.numpy(), (_df(X) * 2 * X).sum(1), rtol=1e-12)
    y2, dy2 = func.jvp(func.vmap(_f), (x,), (2 * x,))
    np.testing.assert_allclose(dy2.numpy(), dy.numpy(), rtol=1e-12)
    jac = func.jacrev(func.vmap(_f))(x)   # torch: shape (2, 2, 3), block diagonal
    assert jac.shape == (2, 2, 3)
    np.testing.assert_allclose(jac.numpy()[[0, 1], [0, 1]], _df(X), rtol=1e-12)
    assert jac.numpy()[0, 1].max() == 0
    hess = func.vmap(func.hessian(_f))(x)
    d2 = 2 * np.cos(X) - X * np.sin(X)
    np.testing.assert_allclose(hess.numpy(), np.stack([np.diag(r) for r in d2]), rtol=1e-12)
    np.testing.assert_allclose(func.vmap(func.jacfwd(func.grad(_f)))(x).numpy(), hess.numpy(), rtol=1e-12)
    ck = func.vmap(lambda a: checkpoint(lambda z: z.sin() * z, a, use_reentrant=False))(x)
    np.testing.assert_allclose(ck.numpy(), np.sin(X) * X, rtol=1e-12)


def test_closures_and_backward_reach_outside():
    w = t(RNG.standard_normal((3, 2))).requires_grad_()
    x = t(X).requires_grad_()
    y = func.vmap(lambda a: a @ w)(x)
    (y ** 2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), X.T @ (2 * X @ w.detach().numpy()), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 2 * X @ w.detach().numpy() @ w.detach().numpy().T, rtol=1e-12)


def test_per_example_gradients_through_functional_call():
    lin = mg.nn.Linear(3, 2).double()
    params = {k: v.detach() for k, v in lin.named_parameters()}
    xs, ys = t(Z[0]), t(Z[1, :, :2])

    def loss(p, x, y):
        return ((func.functional_call(lin, p, (x,)) - y) ** 2).sum()

    per = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, xs, ys)
    w, b = params["weight"].numpy(), params["bias"].numpy()
    r = 2 * (Z[0] @ w.T + b - Z[1, :, :2])
    np.testing.assert_allclose(per["weight"].numpy(), r[:, :, None] * Z[0][:, None, :], rtol=1e-12)
    np.testing.assert_allclose(per["bias"].numpy(), r, rtol=1e-12)
    bn = mg.nn.BatchNorm1d(3).double().eval()
    np.testing.assert_allclose(func.vmap(bn)(t(Z)).numpy(), Z / np.sqrt(1 + 1e-5), rtol=1e-12)


def test_in_place_writes_inside():
    x = t(X)
    np.testing.assert_allclose(func.vmap(lambda a: a.clone().add_(1).mul_(a))(x).numpy(), (X + 1) * X)
    func.vmap(lambda a: a.add_(1))(x)  # the slices are views of x, as torch's batched tensor is
    np.testing.assert_allclose(x.numpy(), X + 1)

    def placed(a):
        y = mg.zeros(4, dtype=a.dtype)
        y[1:] = a * 2   # torch refuses (an unbatched tensor written with a batched value); here per example
        return y

    np.testing.assert_allclose(func.vmap(placed)(t(X)).numpy(), np.pad(2 * X, ((0, 0), (1, 0))))


def test_grad_and_value_is_torchs_order():
    x = t(X[0])
    g, v = func.grad_and_value(lambda a: (a ** 2).sum())(x)
    np.testing.assert_allclose(g.numpy(), 2 * X[0])
    assert v.item() == pytest.approx((X[0] ** 2).sum())
    g, (v, aux) = func.grad_and_value(lambda a: ((a ** 2).sum(), a * 3), has_aux=True)(x)
    np.testing.assert_allclose(aux.numpy(), 3 * X[0])


def test_jacobian_keywords():
    x = t(X[0])
    np.testing.assert_allclose(func.jacrev(mg.sin, chunk_size=1)(x).numpy(), np.diag(np.cos(X[0])))
    with pytest.raises(ValueError, match="`chunk_size` should be greater than 0"):
        func.jacrev(mg.sin, chunk_size=0)
    with pytest.raises(RuntimeError, match="called random operation while in randomness error mode"):
        func.jacfwd(lambda a: mg.nn.functional.dropout(a, 0.5), randomness="error")(x)   # torch's default
    mg.manual_seed(1)
    kept = func.jacfwd(lambda a: mg.nn.functional.dropout(a, 0.5))(x).numpy()  # mg's default: "same"
    assert set(np.unique(np.diag(kept))) <= {0.0, 2.0}
    # a reseed inside is not a draw
    np.testing.assert_allclose(func.jacfwd(lambda a: mg.manual_seed(3) and a.sin(), randomness="error")(x).numpy(),
                               np.diag(np.cos(X[0])))
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        func.jacfwd(mg.sin, randomness="x")
    # "different": refused when the function draws (one call cannot give each column its own draw) ...
    with pytest.raises(NotImplementedError, match="randomness='different'"):
        func.jacfwd(lambda a: mg.nn.functional.dropout(a, 0.5), randomness="different")(x)
    # ... and PyTorch's Jacobian when it does not (it raised before the call, where torch answers)
    np.testing.assert_allclose(func.jacfwd(mg.sin, randomness="different")(x).numpy(), np.diag(np.cos(X[0])))
    dropout_in_eval = mg.nn.Dropout(0.5).eval()
    np.testing.assert_allclose(func.jacfwd(dropout_in_eval, randomness="different")(x.double()).numpy(), np.eye(3))


class _Ensemble(mg.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = mg.nn.Linear(3, 4).double()
        self.bn = mg.nn.BatchNorm1d(4).double()
        self.l2 = mg.nn.Linear(4, 2).double()

    def forward(self, x):
        return self.l2(self.bn(self.l1(x)).tanh())


def test_an_ensemble_through_stack_module_state():
    models = [_Ensemble() for _ in range(3)]
    for i, m in enumerate(models):
        with mg.no_grad():
            for k, p in m.named_parameters():
                p.copy_(t(np.random.default_rng(i * 10 + len(k)).normal(size=tuple(p.shape))))
        m.eval()
    params, buffers = func.stack_module_state(models)
    assert list(params) == ["l1.weight", "l1.bias", "bn.weight", "bn.bias", "l2.weight", "l2.bias"]
    assert list(buffers) == ["bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]
    w = params["l1.weight"]
    assert w.shape == (3, 4, 3) and w.requires_grad and w.grad_fn is None
    assert not buffers["bn.running_var"].requires_grad
    x = t(np.linspace(-1, 1, 15).reshape(5, 3))
    out = func.vmap(lambda p, b, a: func.functional_call(models[0], (p, b), (a,)), in_dims=(0, 0, None))(
        params, buffers, x)
    # the same program in torch 2.13 (torch.func.stack_module_state, vmap, functional_call): out[:, 0]
    np.testing.assert_allclose(out.detach().numpy()[:, 0], [[-0.618594, -0.563301], [1.667012, -0.765634],
                                                            [1.102345, 0.911108]], atol=1e-6)
    out.sum().backward()
    np.testing.assert_array_equal(params["l2.bias"].grad.numpy(), np.full((3, 2), 5.0))
    assert func.replace_all_batch_norm_modules_(models[0]) is models[0]
    bn = models[0].bn
    assert bn.running_mean is None and not bn.track_running_stats and dict(models[0].named_buffers()) == {}
    with pytest.raises(RuntimeError, match="Expected at least one model, got 0"):
        func.stack_module_state([])
    with pytest.raises(RuntimeError, match="Expected all models to be of the same class"):
        func.stack_module_state([models[1], mg.nn.Linear(3, 4).eval()])
    models[1].train()
    with pytest.raises(RuntimeError, match="same training/eval mode"):
        func.stack_module_state(models)


def test_functionalize_and_debug_unwrap_are_the_identity_here():
    np.testing.assert_array_equal(func.functionalize(lambda a: a.add_(1))(mg.ones(2)).numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="received invalid argument for remove"):
        func.functionalize(mg.sin, remove="x")
    x = mg.ones(1)
    assert func.debug_unwrap(x) is x


def test_integer_outputs_under_reverse_mode_as_torch():
    # torch.func.vjp/jacrev/hessian refuse an integer output; grad gives zeros; torch.autograd.functional zeros
    x = t(X[0])
    for call in (lambda: func.vjp(lambda a: (a * 2, a.argmax()), x), lambda: func.jacrev(lambda a: a.argmax())(x),
                 lambda: func.hessian(lambda a: a.argmax())(x)):
        with pytest.raises(RuntimeError, match="All outputs of f must be floating-point or complex Tensors, got "
                                               "Tensor with dtype int64"):
            call()
    np.testing.assert_array_equal(func.grad(lambda a: (a > 0).sum())(x).numpy(), np.zeros(3))
    jac = func.jacfwd(lambda a: (a * 2, a.argmax()))(x)   # forward mode takes it (torch: an int64 zero block)
    assert jac[1].dtype == mg.int64 and not jac[1].numpy().any()
    af = mg.autograd.functional
    np.testing.assert_array_equal(af.jacobian(lambda a: a.argmax(), x).numpy(), np.zeros(3))
    out, vj = af.vjp(lambda a: (a.argmax(), a * 2), x, (mg.tensor(1), mg.ones(3, dtype=mg.float64)))
    assert out[0].dtype == mg.int64 and out[0].item() == int(np.argmax(X[0]))
    np.testing.assert_array_equal(vj.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(af.hessian(lambda a: a.argmax(), x).numpy(), np.zeros((3, 3)))


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("out_dim", [0, 1, -1])
def test_one_tensor_returned_takes_its_out_dims_in_a_one_tuple(out_dim, dtype):
    # torch 2.13: vmap(lambda a: a * 2, out_dims=(1,))(x) is vmap(..., out_dims=1)(x) when the function
    # returns one tensor (not a tuple); mg refused it ("out_dims is not compatible")
    x = mg.tensor(np.arange(6.0).reshape(3, 2), dtype=dtype, requires_grad=True)
    got = func.vmap(lambda a: a * 2, out_dims=(out_dim,))(x)
    want = func.vmap(lambda a: a * 2, out_dims=out_dim)(x)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.shape == want.shape and got.dtype == dtype
    got.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((3, 2), 2.0))
    with pytest.raises(ValueError, match="out_dims is not compatible"):
        func.vmap(lambda a: a * 2, out_dims=(0, 0))(x)
    with pytest.raises(ValueError, match="out_dims is not compatible"):
        func.vmap(lambda a: a * 2, out_dims=[0])(x)  # a list is not taken (torch: the same error)


@pytest.mark.parametrize("chunk_size", [1.5, "2"])
def test_a_chunk_size_that_is_not_an_int_is_a_type_error(chunk_size):
    # torch 2.13: TypeError ("can't multiply sequence by non-int of type 'float'", raised where it splits the
    # batch); mg said ValueError "should be greater than 0", which 1.5 is
    with pytest.raises(TypeError, match="chunk_size must be None or an int"):
        func.vmap(mg.sin, chunk_size=chunk_size)(t(X))
    with pytest.raises(TypeError, match="chunk_size must be None or an int"):
        func.jacrev(mg.sin, chunk_size=chunk_size)(t(X[0]))
    for what in (func.vmap, func.jacrev):  # an int below 1 stays torch's ValueError
        with pytest.raises(ValueError, match="greater than 0"):
            what(mg.sin, chunk_size=0)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_examples_whose_outputs_differ_in_shape_are_refused_in_vmaps_words(device):
    # a boolean mask's selection has a shape of its values: no one batched tensor holds it (torch refuses
    # the op under vmap; the loop found out at stack(), whose message did not name vmap)
    x = mg.tensor([[1.0, -1.0], [1.0, 1.0]], device=device)
    with pytest.raises(RuntimeError, match=r"vmap\(<lambda>.*shape \(1,\) for example 0 and \(2,\) for example 1"):
        func.vmap(lambda row: row[row > 0])(x)
    with pytest.raises(RuntimeError, match=r"shape \(1,\) for example 0 and \(2,\) for example 1"):
        func.vmap(lambda row: (row * 2, mg.nonzero(row > 0)), out_dims=(0, 1))(x)
    same = mg.tensor([[1.0, -1.0], [2.0, -3.0]], device=device)  # (equal shapes: the loop answers)
    assert func.vmap(lambda row: row[row > 0])(same).tolist() == [[1.0], [2.0]]
