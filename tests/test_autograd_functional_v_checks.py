"""``mg.autograd.functional``'s ``v`` (vjp, jvp, hvp, vhp) is checked as PyTorch's ``_as_tuple(v,
"v", ...)`` and ``_validate_v`` check it, with their words (torch 2.13's on the same calls, below).

Before: a single Tensor ``v`` for a function of several inputs was read as a tuple of its rows
(``jvp(f, (a, b), stack([va, vb]))`` returned a result where PyTorch refuses), a list or a number
was taken, and a wrong size was the transforms' message ("vjp_fn: cotangents 0 has shape ...").
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" stand-in device)

AF = mg.autograd.functional


def _x(device="cpu"):
    return mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, device=device)


def _cube_sum(a, b=None):
    return (a ** 3).sum() if b is None else (a * b * b).sum()


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_single_tensor_is_one_vector_not_a_stack_of_several(device):
    x, stacked = _x(device), mg.ones(2, 3, dtype=mg.float64, device=device)
    for call in (lambda: AF.jvp(lambda a, b: a * b, (x, x), stacked),
                 lambda: AF.hvp(_cube_sum, (x, x), stacked),
                 lambda: AF.vhp(_cube_sum, (x, x), stacked)):
        with pytest.raises(RuntimeError, match=r"^v is a tuple of invalid length: should be 2 but got 1\.$"):
            call()
    with pytest.raises(RuntimeError, match=r"^The given v should contain a single Tensor\.$"):
        AF.vjp(lambda a: a * 2, x, (x, x))
    with pytest.raises(RuntimeError, match=r"^v is a tuple of invalid length: should be 2 but got 1\.$"):
        AF.vjp(lambda a: (a * 2, a * 3), x, x)


@pytest.mark.parametrize("what", ["vjp", "jvp", "hvp", "vhp"])
def test_a_wrong_size_is_pytorchs_words(what):
    fn = (lambda a: a * 2) if what in ("vjp", "jvp") else _cube_sum
    with pytest.raises(RuntimeError, match=r"^v has invalid size: should be \(3,\) but got \(1, 3\)\.$"):
        getattr(AF, what)(fn, _x(), mg.ones(1, 3, dtype=mg.float64))
    two = (lambda a, b: a * b) if what in ("vjp", "jvp") else _cube_sum
    v = (mg.ones(3, dtype=mg.float64), mg.ones(2, dtype=mg.float64))
    if what == "vjp":
        two = lambda a, b: (a * b, a + b)  # noqa: E731  (two outputs: v is checked against them)
    with pytest.raises(RuntimeError, match=r"^Entry 1 in v has invalid size: should be \(3,\) but got \(2,\)\.$"):
        getattr(AF, what)(two, (_x(), _x()), v)


@pytest.mark.parametrize("what", ["vjp", "jvp", "hvp", "vhp"])
def test_a_list_or_a_number_is_pytorchs_type_error(what):
    fn = (lambda a: (a ** 2).sum()) if what == "vjp" else (lambda a: a * 2) if what == "jvp" else _cube_sum
    x = mg.tensor([2.0], dtype=mg.float64)
    for v, kind in (([mg.ones(1, dtype=mg.float64)], "list"), (1.0, "float")):
        with pytest.raises(TypeError, match=rf"^The v given to {what} must be either a Tensor or a tuple of Tensors "
                                            rf"but the given v has type <class '{kind}'>\.$"):
            getattr(AF, what)(fn, x, v)
    with pytest.raises(TypeError, match=rf"^The v given to {what} must be either a Tensor or a tuple of Tensors but "
                                        rf"the value at index 0 has type <class 'float'>\.$"):
        getattr(AF, what)(fn, x, (1.0,))


def test_right_vs_still_work():
    x = _x()
    out, g = AF.vjp(lambda a, b: (a * b, a + b), (x, x), (mg.ones(3, dtype=mg.float64), mg.ones(3, dtype=mg.float64)))
    assert g[0].tolist() == [1.5, 0.0, 3.0]
    assert AF.jvp(lambda a, b: a * b, (x, x), (x, x))[1].tolist() == [0.5, 2.0, 8.0]
    assert AF.hvp(_cube_sum, x, mg.ones(3, dtype=mg.float64))[1].tolist() == [3.0, -6.0, 12.0]


def _sin_times(a):
    return a.sin() * a


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype,v_dtype", [(mg.float64, mg.float32), (mg.float32, mg.float64)])
@pytest.mark.parametrize("checkpointed", [False, True])
def test_a_v_of_another_float_dtype_is_cast_to_its_inputs(device, dtype, v_dtype, checkpointed):
    """PyTorch's jvp and hvp are double-backward: ``v`` is the grad_outputs of the last backward
    pass, which autograd casts to the input's dtype (vjp's and vhp's ``v`` likewise).  Before: jvp
    and hvp refused it with linearize's "tangent:0 with dtype float32 in flattened pytree doesn't
    match the dtype float64 of the corresponding primal." (torch 2.13 returns the products)."""
    fn = (lambda a: mg.checkpoint.checkpoint(_sin_times, a, use_reentrant=False)) if checkpointed else _sin_times
    x = mg.tensor([0.5, -1.0, 2.0], dtype=dtype, device=device)
    v = mg.tensor([1.0, 2.0, -0.5], dtype=v_dtype, device=device)
    same = v.to(dtype)
    for what in ("vjp", "jvp", "hvp", "vhp"):
        f = fn if what in ("vjp", "jvp") else (lambda a: fn(a).sum())
        out, product = getattr(AF, what)(f, x, v)
        expected = getattr(AF, what)(f, x, same)[1]
        assert product.dtype == dtype and out.dtype == dtype, what
        assert product.tolist() == expected.tolist(), what


@pytest.mark.parametrize("what", ["jvp", "hvp", "vhp"])
def test_a_cast_v_gets_its_gradient_in_its_own_dtype_with_create_graph(what):
    x = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True)
    v = mg.tensor([1.0, 2.0, -0.5], dtype=mg.float32, requires_grad=True)
    f = _sin_times if what == "jvp" else (lambda a: _sin_times(a).sum())
    _, product = getattr(AF, what)(f, x, v, create_graph=True)
    product.sum().backward()
    # d/dv sum(J v) = J^T 1 = the derivative of sin(a) * a: cos(a) * a + sin(a) (the Hessian is diagonal)
    slope = (x.detach().cos() * x.detach() + x.detach().sin())
    slope = slope if what == "jvp" else 2 * x.detach().cos() - x.detach() * x.detach().sin()
    assert v.grad.dtype == mg.float32
    assert v.grad.tolist() == pytest.approx(slope.tolist(), rel=1e-6)
    assert x.grad is not None and x.grad.dtype == mg.float64


@pytest.mark.parametrize("what", ["jvp", "hvp"])
def test_a_complex_v_of_a_real_input_is_autograds_runtime_error(what):
    f = _sin_times if what == "jvp" else (lambda a: _sin_times(a).sum())
    with pytest.raises(RuntimeError, match=r"^For complex Tensors, both grad_output and output are required to have "
                                           r"the same dtype\. Mismatch in dtype: grad_output\[0\] has a dtype of "
                                           r"complex128 and output\[0\] has a dtype of float64\.$"):
        getattr(AF, what)(f, _x(), mg.ones(3, dtype=mg.complex128))
