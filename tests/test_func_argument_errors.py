"""What ``mg.func``'s transforms refuse about their arguments and their function's results, with
``torch.func``'s exception types (torch 2.13's answers written beside each case).

They were ``TypeError``/``ValueError`` where ``torch.func`` raises ``RuntimeError`` (argnums, a
result that is not a Tensor, ``has_aux`` without a pair, tangents or cotangents of the wrong
structure or shape, primals that are not a tuple), and a repeated argument in ``argnums`` was
accepted (each gradient computed as if the argument appeared once); torch refuses it.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import func as F

X = mg.tensor([1.0, 2.0, 3.0])
TWO = lambda a, b: (a * b).sum()  # noqa: E731

JACOBIANS = {"grad": F.grad, "grad_and_value": F.grad_and_value, "jacrev": F.jacrev, "jacfwd": F.jacfwd,
             "hessian": F.hessian}


@pytest.mark.parametrize("argnums", [(0, 0), (0, -2), (1, -1)])
@pytest.mark.parametrize("transform", JACOBIANS)
def test_a_repeated_argnum_is_refused(transform, argnums):
    # torch 2.13: RuntimeError "argnums elements must be unique, got (0, 0)" (after counting from the end)
    with pytest.raises(RuntimeError, match=r"argnums elements must be unique, got \((\d), \1\)"):
        JACOBIANS[transform](TWO, argnums=argnums)(X, X)


@pytest.mark.parametrize("transform", JACOBIANS)
def test_argnums_out_of_range_empty_or_not_ints_are_runtime_errors(transform):
    # torch 2.13: RuntimeError "Got argnum=2, but only 2 positional inputs", "argnums must be
    # non-empty", "argnum must be int, got: <class 'float'>"
    for argnums, words in ((2, "out of range"), ((), "empty"), ((0, 1.0), "int"), (1.0, "int")):
        with pytest.raises(RuntimeError, match=words):
            JACOBIANS[transform](TWO, argnums=argnums)(X, X)


RESULTS = {
    "grad": lambda f: F.grad(f)(X),
    "vjp": lambda f: F.vjp(f, X),
    "jvp": lambda f: F.jvp(f, (X,), (X,)),
    "jacrev": lambda f: F.jacrev(f)(X),
    "jacfwd": lambda f: F.jacfwd(f)(X),
    "hessian": lambda f: F.hessian(f)(X),
}


@pytest.mark.parametrize("transform", RESULTS)
def test_a_result_that_is_not_a_tensor_is_a_runtime_error(transform):
    # torch 2.13: RuntimeError "vjp(f, *primals): expected f(*primals) to return only tensors, got
    # unsupported type <class 'float'>" (and grad's, jvp's likewise)
    for f in (lambda a: 3.0, lambda a: [a.sum(), 2.0]):
        with pytest.raises(RuntimeError, match="not a Tensor"):
            RESULTS[transform](f)


@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd"])
def test_has_aux_without_a_pair_is_a_runtime_error(transform):
    # torch 2.13: RuntimeError "...: output of function f should be a tuple: (output, aux) if has_aux is True"
    for f in (lambda a: a.sum(), lambda a: (a.sum(), 1, 2)):
        with pytest.raises(RuntimeError, match="pair"):
            JACOBIANS[transform](f, has_aux=True)(X)
    with pytest.raises(RuntimeError, match="pair"):
        F.vjp(lambda a: a.sum(), X, has_aux=True)
    with pytest.raises(RuntimeError, match="pair"):
        F.jvp(lambda a: a.sum(), (X,), (X,), has_aux=True)


def test_tangents_and_cotangents_of_the_wrong_structure_or_shape_are_runtime_errors():
    # torch 2.13: RuntimeError for each ("Expected primals and tangents to have the same python
    # structure", "Trying to set a forward gradient that has a different size", "Expected pytree
    # structure of cotangents to be the same", "Mismatch in shape", "Expected primals to be a tuple")
    cases = [lambda: F.jvp(lambda a: a, (X,), ((X, X),)), lambda: F.jvp(lambda a: a, (X,), (mg.ones(2),)),
             lambda: F.jvp(lambda a: a, (X,), (X, X)), lambda: F.jvp(lambda a: a, X, (X,)),
             lambda: F.vjp(lambda a: (a, a), X)[1](X), lambda: F.vjp(lambda a: a, X)[1](mg.ones(2)),
             lambda: F.linearize(lambda a: a.sin(), X)[1](mg.ones(2))]
    for case in cases:
        with pytest.raises(RuntimeError):
            case()


def test_an_integer_argument_is_refused_with_torchs_type_for_each_mode():
    xi = mg.tensor([1, 2, 3])
    # torch 2.13: reverse mode RuntimeError "only Tensors of floating point dtype can require
    # gradients"; forward mode ValueError "Expected primal to be floating point or complex"
    for reverse in (lambda: F.grad(lambda a: a.sum())(xi), lambda: F.vjp(lambda a: a, xi),
                    lambda: F.jacrev(lambda a: a)(xi)):
        with pytest.raises(RuntimeError, match="floating"):
            reverse()
    for forward in (lambda: F.jvp(lambda a: a, (xi,), (xi,)), lambda: F.jacfwd(lambda a: a)(xi),
                    lambda: F.hessian(lambda a: a.sum())(xi), lambda: F.linearize(lambda a: a, xi)):
        with pytest.raises(ValueError, match="floating"):
            forward()


@pytest.mark.parametrize("transform", RESULTS)
def test_a_result_without_tensors_or_holding_none_is_a_runtime_error(transform):
    # torch 2.13: RuntimeError "vjp(f, *primals): Expected f to be a function that has non-empty
    # output (got output = [])" and "... got unsupported type <class 'NoneType'>"; mg returned None
    # (or an empty Jacobian) without a word
    for f in (lambda a: None, lambda a: (), lambda a: {}, lambda a: (None, a * 2), lambda a: {"n": None, "t": a}):
        with pytest.raises(RuntimeError):
            RESULTS[transform](f)


def test_linearize_takes_a_result_without_tensors_as_torch_does():
    out, jvp_fn = F.linearize(lambda a: None, X)  # torch 2.13: (None, jvp_fn)
    assert out is None


@pytest.mark.parametrize("tangent", [mg.tensor([1, 2]), mg.tensor([True, False])], ids=["int64", "bool"])
def test_an_integer_or_bool_tangent_is_refused_as_torch_refuses_it(tangent):
    # torch 2.13: jvp -> ValueError "Expected tangent to be floating point or complex, but got:
    # torch.int64"; linearize's jvp_fn -> RuntimeError "tangent:0 with dtype torch.int64 ... doesn't
    # match the dtype torch.float64 of the corresponding primal". mg cast it and answered.
    x = mg.tensor([0.5, 1.5], dtype=mg.float64)
    with pytest.raises(ValueError, match="floating point or complex"):
        F.jvp(lambda a: a * 2, (x,), (tangent,))
    with pytest.raises(ValueError, match="floating point or complex"):
        F.jvp(lambda d: d["a"] * 2, ({"a": x},), ({"a": tangent},))
    with pytest.raises(RuntimeError, match="floating point or complex"):
        F.linearize(lambda a: a * 2, x)[1](tangent)
    # a float tangent of the other precision is still taken, in the primal's dtype
    _, t = F.jvp(lambda a: a * 2, (x,), (mg.tensor([1.0, 2.0], dtype=mg.float32),))
    assert t.dtype == mg.float64 and t.tolist() == [2.0, 4.0]


XC = mg.tensor([0.3, 0.5], dtype=mg.complex128)
XR = mg.tensor([0.3, 0.5], dtype=mg.float64)
COMPLEX_JACOBIANS = [  # (call, torch 2.13's words)
    (lambda: F.jacfwd(lambda z: z.abs())(XC), "jacfwd: Expected all inputs to be real .* idx: 0"),
    (lambda: F.jacfwd(lambda z: z * 1j)(XR), "jacfwd: Expected all outputs to be real .* idx: 0"),
    (lambda: F.jacrev(lambda z: z.abs())(XC), "jacrev: Expected all inputs to be real .* idx: 0"),
    (lambda: F.jacrev(lambda z: z * 1j)(XR), "jacrev: Expected all outputs to be real .* idx: 0"),
    (lambda: F.hessian(lambda z: z.abs().sum())(XC), "jacfwd: Expected all inputs to be real .* idx: 0"),
    (lambda: F.jacrev(lambda a, b: (a * b).abs(), argnums=(0, 1))(XR, XC),
     "jacrev: Expected all inputs to be real .* idx: 1"),
    (lambda: F.vjp(lambda z: z * 2, XR)[1](XC),
     r"both grad_output and output are required to have the same dtype.*grad_output\[0\] has a dtype of complex128"),
    (lambda: mg.autograd.functional.jacobian(lambda z: z * 1j, XR), "Expected all outputs to be real"),
]


@pytest.mark.parametrize("call, words", COMPLEX_JACOBIANS)
def test_a_complex_jacobian_or_cotangent_is_torchs_runtime_error(call, words):
    # torch 2.13 raises RuntimeError for each (the words beside); the engine raised TypeError
    with pytest.raises(RuntimeError, match=words):
        call()


@pytest.mark.parametrize("primals, tangents", [((), ()), (((),), ((),)), (([], {}), ([], {}))],
                         ids=["no primals", "an empty tuple", "empty containers"])
def test_jvp_of_primals_without_a_tensor_is_refused(primals, tangents):
    # torch 2.13: RuntimeError "jvp(f, primals, tangents): Expected primals to contain at least one
    # Tensor."  It called f with no tangent at all (a TypeError from f with no arguments); found by
    # porting PyTorch's test_nonempty_primals_and_tangents to a probe.
    calls = []
    with pytest.raises(RuntimeError, match="Expected primals to contain at least one Tensor"):
        F.jvp(lambda *a: calls.append(a) or X, primals, tangents)
    assert not calls


@pytest.mark.parametrize("in_dims", [True, False, (True,), ((0, False),)], ids=repr)
def test_vmap_refuses_a_bool_in_dim_with_pytorchs_type_error(in_dims):
    """torch 2.13: ``vmap(f, in_dims=True)(x)`` of a 2-D ``x`` raises TypeError ("size(): argument 'dim'
    must be int, not bool"); the engine raised only ValueError (its refusal of an in_dims of the wrong
    type, and PyTorch's where ``True`` is past a 1-D input's dims): both now."""
    x = mg.ones(2, 3)
    for error in (TypeError, ValueError):
        with pytest.raises(error, match="in_dims holds a bool"):
            mg.func.vmap(lambda x: x, in_dims=in_dims)(x if in_dims != ((0, False),) else (x, x))
