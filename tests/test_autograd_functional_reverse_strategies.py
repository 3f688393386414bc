"""``mg.autograd.functional`` follows torch 2.13's strategies, so a custom ``Function`` with a
differentiable ``backward`` but no ``jvp`` works wherever it works in PyTorch: ``jacobian`` (default
``strategy="reverse-mode"``) and ``vjp`` are reverse mode, ``hessian`` (default
``outer_jacobian_strategy="reverse-mode"``) and ``vhp`` are reverse over reverse, and ``jvp`` and
``hvp`` are the double-backward trick (a backward pass differentiated once more), not forward mode.
Here ``hessian``, ``jvp`` and ``hvp`` used forward mode and raised ``MissingJvpError``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

AF = mg.autograd.functional
W = np.array([0.5, -1.0, 0.25])
X = np.array([0.3, -0.7, 1.1])
V = np.array([1.0, -2.0, 0.5])


class MulExp(mg.autograd.Function):
    """``a * exp(b)``: a backward made of tensor ops (differentiable again), and no ``jvp``."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b.exp()

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        e = b.exp()
        return g * e, g * a * e


DEVICES = [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64), ("strict-f32", mg.float32)]


def _setup(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    w = mg.tensor(W, dtype=dtype, device=device)
    return mg.tensor(X, dtype=dtype, device=device), mg.tensor(V, dtype=dtype, device=device), w


def _vector_f(w):
    return lambda a: MulExp.apply(a, a * w)


def _scalar_f(w):
    return lambda a: MulExp.apply(a, a * w).sum()


# f(x) = x exp(w x) elementwise: f' = exp(wx)(1 + wx); of the sum, the Hessian is diagonal, w exp(wx)(2 + wx)
VALUE = X * np.exp(W * X)
SLOPE = np.exp(W * X) * (1 + W * X)
CURVE = W * np.exp(W * X) * (2 + W * X)


def _check(got, want, dtype):
    tol = 1e-5 if dtype == mg.float32 else 1e-12
    assert got.dtype == dtype
    np.testing.assert_allclose(got.detach().cpu().numpy(), want, rtol=tol, atol=tol)


def test_the_expected_values_are_central_differences():
    h = 1e-6
    f = lambda x: x * np.exp(W * x)  # noqa: E731
    np.testing.assert_allclose((f(X + h) - f(X - h)) / (2 * h), SLOPE, rtol=1e-8)
    g = lambda x: np.exp(W * x) * (1 + W * x)  # noqa: E731
    np.testing.assert_allclose((g(X + h) - g(X - h)) / (2 * h), CURVE, rtol=1e-8)


CALLS = {  # each: the call, and its results' values
    "jacobian": (lambda x, v, w, cg, st: [AF.jacobian(_vector_f(w), x, create_graph=cg, strict=st)],
                 [np.diag(SLOPE)]),
    "hessian": (lambda x, v, w, cg, st: [AF.hessian(_scalar_f(w), x, create_graph=cg, strict=st)],
                [np.diag(CURVE)]),
    "vjp": (lambda x, v, w, cg, st: list(AF.vjp(_vector_f(w), x, v, create_graph=cg, strict=st)),
            [VALUE, SLOPE * V]),
    "jvp": (lambda x, v, w, cg, st: list(AF.jvp(_vector_f(w), x, v, create_graph=cg, strict=st)),
            [VALUE, SLOPE * V]),
    "hvp": (lambda x, v, w, cg, st: list(AF.hvp(_scalar_f(w), x, v, create_graph=cg, strict=st)),
            [VALUE.sum(), CURVE * V]),
    "vhp": (lambda x, v, w, cg, st: list(AF.vhp(_scalar_f(w), x, v, create_graph=cg, strict=st)),
            [VALUE.sum(), CURVE * V]),
}


@pytest.mark.parametrize("strict_mode", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", list(CALLS))
def test_a_function_without_jvp_goes_through_every_entry_point(name, device, dtype, create_graph, strict_mode):
    x, v, w = _setup(device, dtype)
    call, want = CALLS[name]
    results = call(x, v, w, create_graph, strict_mode)
    for r, expected in zip(results, want):
        _check(r, expected, dtype)
        assert r.requires_grad == create_graph
    if create_graph:
        sum(r.sum() for r in results).backward()  # the results are on a graph, as PyTorch's


class OnceSquare(mg.autograd.Function):
    """``a * a`` with a ``jvp`` but a backward marked ``once_differentiable``: a double backward
    through it is refused."""

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    @mg.autograd.function.once_differentiable
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g

    @staticmethod
    def jvp(ctx, t):
        (a,) = ctx.saved_tensors
        return 2 * a * t


def _once_sum(a):
    return OnceSquare.apply(a).sum()


ONCE_CALLS = {  # torch 2.13's answers at x = [1, 2], v = [1, 1]: where the double backward is refused,
    # PyTorch's DelayedError hangs off a fresh leaf, so its trick finds the product unused (zeros)
    "jacobian": (lambda x, v, cg: [AF.jacobian(OnceSquare.apply, x, create_graph=cg)], [[[2, 0], [0, 4]]]),
    "vjp": (lambda x, v, cg: list(AF.vjp(OnceSquare.apply, x, v, create_graph=cg)), [[1, 4], [2, 4]]),
    "hessian": (lambda x, v, cg: [AF.hessian(_once_sum, x, create_graph=cg)], [[[0, 0], [0, 0]]]),
    "hvp": (lambda x, v, cg: list(AF.hvp(_once_sum, x, v, create_graph=cg)), [5, [0, 0]]),
    "vhp": (lambda x, v, cg: list(AF.vhp(_once_sum, x, v, create_graph=cg)), [5, [0, 0]]),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("device, dtype", DEVICES)
@pytest.mark.parametrize("name", list(ONCE_CALLS))
def test_a_refused_double_backward_answers_as_torch(name, device, dtype, create_graph):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)
    x, v = mg.tensor([1.0, 2.0], dtype=dtype, device=device), mg.ones(2, dtype=dtype, device=device)
    call, want = ONCE_CALLS[name]
    for r, expected in zip(call(x, v, create_graph), want):
        _check(r, np.asarray(expected, dtype=float), dtype)


def test_a_refused_double_backward_in_strict_mode_is_torchs_error():
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="the jacobian of the user-provided function with respect to input 0 is "
                                           "independent of the input"):
        AF.hessian(_once_sum, x, strict=True)


@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp_of_a_refused_double_backward_is_an_error_not_torchs_zeros(create_graph):
    # torch 2.13 answers (value, zeros) here -- its DelayedError hangs off a fresh leaf, so the
    # double-backward trick finds the product unused -- a silently wrong jvp; the engine refuses
    x, v = mg.tensor([1.0, 2.0]), mg.ones(2)
    with pytest.raises(RuntimeError, match="once_differentiable|differentiate twice"):
        AF.jvp(OnceSquare.apply, x, v, create_graph=create_graph)


WRITING_CALLS = {  # torch 2.13 refuses each: its inputs are leaves that require grad
    "jvp": lambda x, cg: AF.jvp(lambda a: a.mul_(2) ** 2, x, mg.ones(2), create_graph=cg),
    "hvp": lambda x, cg: AF.hvp(lambda a: (a.mul_(2) ** 3).sum(), x, mg.ones(2), create_graph=cg),
    "vhp": lambda x, cg: AF.vhp(lambda a: (a.mul_(2) ** 3).sum(), x, mg.ones(2), create_graph=cg),
    "hessian": lambda x, cg: AF.hessian(lambda a: (a.mul_(2) ** 3).sum(), x, create_graph=cg),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", list(WRITING_CALLS))
def test_a_write_into_an_input_is_refused_as_torch(name, create_graph):
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad is being used in an in-place"):
        WRITING_CALLS[name](x, create_graph)
    assert x.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("device, dtype", DEVICES)
def test_inside_checkpoint_and_under_mg_func_grad(device, dtype):
    x, v, w = _setup(device, dtype)

    def checkpointed(a):
        return mg.checkpoint.checkpoint(_vector_f(w), a, use_reentrant=False)

    out, product = AF.jvp(checkpointed, x, v)
    _check(out, VALUE, dtype)
    _check(product, SLOPE * V, dtype)
    _check(AF.hessian(lambda a: checkpointed(a).sum(), x), np.diag(CURVE), dtype)
    _check(AF.hvp(lambda a: checkpointed(a).sum(), x, v)[1], CURVE * V, dtype)
    # d/dx sum(J v), J = diag(SLOPE): CURVE * v
    _check(mg.func.grad(lambda a: AF.jvp(_vector_f(w), a, v, create_graph=True)[1].sum())(x), CURVE * V, dtype)


def test_jvp_of_an_integer_output_is_torchs_error():
    # torch 2.13: the double-backward trick's seed, zeros_like(output, requires_grad=True), refuses it
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        AF.jvp(lambda a: (a > 0).long(), mg.tensor([0.3, -0.7]), mg.ones(2))
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        AF.jvp(lambda a: (a * 2, (a > 0).long()), mg.tensor([0.3, -0.7]), mg.ones(2))


_ON_A_GRAPH = ("The {} of the user-provided function is independent of input {}. This is not allowed in strict mode "
               "when create_graph=True.")
_LINEAR_JACOBIAN = _ON_A_GRAPH.format("jacobian", "{}")
_CONSTANT_HESSIAN = _ON_A_GRAPH.format("hessian", "{}")
_UNREACHED_SEED = ("The gradient with respect to the input is independent of entry {} in the grad_outputs when using "
                   "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.")
_X2, _Y2, _V2 = [0.3, -0.7], [1.5, 2.0], [1.0, -2.0]
STRICT_CALLS = {  # torch 2.13's errors (its words: for jacobian and jvp, the index is the output's)
    "vjp linear": (lambda x, y, v: AF.vjp(lambda a: 2 * a, x, v, strict=True, create_graph=True),
                   _LINEAR_JACOBIAN.format(0)),
    "jvp linear": (lambda x, y, v: AF.jvp(lambda a: 2 * a, x, v, strict=True, create_graph=True),
                   _LINEAR_JACOBIAN.format(0)),
    "jvp linear second output": (lambda x, y, v: AF.jvp(lambda a: (a * a, 2 * a), x, v, strict=True,
                                                        create_graph=True), _LINEAR_JACOBIAN.format(1)),
    "jacobian linear": (lambda x, y, v: AF.jacobian(lambda a: 2 * a, x, strict=True, create_graph=True),
                        _LINEAR_JACOBIAN.format(0)),
    "jacobian linear in b": (lambda x, y, v: AF.jacobian(lambda a, b: a * a + 2 * b, (x, y), strict=True,
                                                         create_graph=True), _LINEAR_JACOBIAN.format(0)),
    "jacobian linear second output": (lambda x, y, v: AF.jacobian(lambda a: (a * a, 2 * a), x, strict=True,
                                                                  create_graph=True), _LINEAR_JACOBIAN.format(1)),
    "hessian quadratic": (lambda x, y, v: AF.hessian(lambda a: (a * a).sum(), x, strict=True, create_graph=True),
                          _LINEAR_JACOBIAN.format(0)),
    "hvp quadratic in b": (lambda x, y, v: AF.hvp(lambda a, b: (a ** 3).sum() + (b * b).sum(), (x, y), (v, v),
                                                  strict=True, create_graph=True), _CONSTANT_HESSIAN.format(1)),
    "vhp quadratic in b": (lambda x, y, v: AF.vhp(lambda a, b: (a ** 3).sum() + (b * b).sum(), (x, y), (v, v),
                                                  strict=True, create_graph=True), _CONSTANT_HESSIAN.format(1)),
    "jvp output off a global leaf": (lambda x, y, v: AF.jvp(lambda a: (a * a, y.requires_grad_() * 3), x, v,
                                                            strict=True), _UNREACHED_SEED.format(1)),
}


@pytest.mark.parametrize("name", list(STRICT_CALLS))
def test_strict_mode_refuses_as_torch(name):
    call, message = STRICT_CALLS[name]
    x, y, v = mg.tensor(_X2), mg.tensor(_Y2), mg.tensor(_V2)
    with pytest.raises(RuntimeError) as err:
        call(x, y, v)
    assert str(err.value) == message


def test_strict_jvp_checks_the_pass_not_output_by_output():
    # torch 2.13: (a * b, b.exp()) passes strict mode (the pullback of both outputs reaches both inputs)
    x, y, v = mg.tensor(_X2), mg.tensor(_Y2), mg.tensor(_V2)
    out, product = AF.jvp(lambda a, b: (a * b, b.exp()), (x, y), (v, v), strict=True, create_graph=True)
    np.testing.assert_allclose(product[0].detach().numpy(), [1.8, -2.6])
    np.testing.assert_allclose(product[1].detach().numpy(), np.exp(_Y2) * _V2)
