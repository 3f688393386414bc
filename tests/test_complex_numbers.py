"""Complex tensors: creation, parts, promotion, the gradient convention, refused orderings.

The convention (docs/complex.md, PyTorch's): for a real loss ``L`` of a complex
leaf ``z``, ``z.grad = dL/dRe(z) + i dL/dIm(z)``, so ``z - lr * z.grad`` is a
gradient-descent step.  Derivatives are checked against central differences
(real and imaginary parts perturbed separately) in reverse and forward mode,
to second order.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt.testing import gradcheck, gradgradcheck

rng = np.random.default_rng(11)


def cplx(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def test_creation_and_parts_match_numpy():
    a, b = rng.standard_normal(4), rng.standard_normal(4)
    z = mg.complex(mg.tensor(a), mg.tensor(b))
    assert z.dtype == np.complex128 and z.is_complex()
    np.testing.assert_array_equal(z.numpy(), a + 1j * b)
    np.testing.assert_array_equal(z.real.numpy(), a)
    np.testing.assert_array_equal(z.imag.numpy(), b)
    np.testing.assert_array_equal(z.conj().numpy(), a - 1j * b)
    np.testing.assert_array_equal(mg.abs(z).numpy(), np.abs(a + 1j * b))
    np.testing.assert_array_equal(mg.angle(z).numpy(), np.angle(a + 1j * b))
    np.testing.assert_allclose(mg.polar(mg.abs(z), mg.angle(z)).numpy(), a + 1j * b, atol=1e-15)
    np.testing.assert_array_equal(mg.view_as_real(z).numpy(), np.stack([a, b], -1))
    np.testing.assert_array_equal(mg.view_as_complex(mg.view_as_real(z)).numpy(), z.numpy())
    assert mg.complex(mg.tensor(a, dtype="float32"), mg.tensor(b, dtype="float32")).dtype == np.complex64


def test_parts_of_real_tensors_follow_numpy():
    x = mg.tensor([-2.0, 3.0])
    assert mg.real(x) is x and mg.conj(x) is x
    np.testing.assert_array_equal(mg.imag(x).numpy(), [0.0, 0.0])
    np.testing.assert_allclose(mg.angle(x).numpy(), np.angle([-2.0, 3.0]))


@pytest.mark.parametrize("bad", [lambda: mg.complex(mg.tensor([1.0]), mg.tensor([1.0], dtype="float64")),
                                 lambda: mg.complex(mg.tensor([1j]), mg.tensor([1.0])),
                                 lambda: mg.view_as_complex(mg.tensor([1.0, 2.0, 3.0])),
                                 lambda: mg.view_as_real(mg.tensor([1.0]))])
def test_creation_errors(bad):
    with pytest.raises(TypeError):
        bad()


def test_type_promotion_is_pytorchs():
    f32, f64 = mg.tensor([1.0], dtype="float32"), mg.tensor([1.0], dtype="float64")
    c64, c128 = mg.tensor([1j], dtype="complex64"), mg.tensor([1j], dtype="complex128")
    assert (f32 + c64).dtype == np.complex64
    assert (f64 + c64).dtype == np.complex128
    assert (f32 * c128).dtype == np.complex128
    assert (f32 * 2j).dtype == np.complex64  # a Python complex is weak, as a Python float
    # torch: int64 tensor + complex64 tensor -> complex64 (NumPy: complex128), int64 tensor * 1j -> complex64
    assert (mg.tensor([1], dtype="int64") + c64).dtype == np.complex64
    assert (mg.tensor([1], dtype="int64") * 1j).dtype == np.complex64


@pytest.mark.parametrize("fn", [
    lambda z: z.real * z.imag, lambda z: mg.abs(z), lambda z: mg.angle(z), lambda z: z.conj(),
    lambda z: mg.view_as_real(z), lambda z: mg.fft.fft(z).imag,
])
def test_derivatives_of_the_parts(fn):
    z = mg.tensor(cplx(3) + 0.5, requires_grad=True)
    gradcheck(fn, (z,))
    gradgradcheck(fn, (z,))


def test_complex_from_real_parts_and_polar_derivatives():
    r, t = mg.tensor(rng.random(3) + 0.5, requires_grad=True), mg.tensor(rng.standard_normal(3), requires_grad=True)
    gradcheck(mg.polar, (r, t))
    gradgradcheck(mg.polar, (r, t))
    gradcheck(mg.complex, (r, t))
    v = mg.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    gradgradcheck(mg.view_as_complex, (v,))


def test_the_gradient_is_dl_dre_plus_i_dl_dim():
    # L = Re(z)^2 + 3 Im(z): dL/dRe = 2 Re(z), dL/dIm = 3
    z = mg.tensor([1.5 - 2j, -0.5 + 1j], requires_grad=True)
    (z.real ** 2 + 3 * z.imag).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [3 + 3j, -1 + 3j])
    # |z|: the unit vector z / |z| (and 0 at 0, as abs'(0) = 0 for reals)
    w = mg.tensor([3 + 4j, 0j], requires_grad=True)
    mg.abs(w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [0.6 + 0.8j, 0])


def test_gradient_descent_with_the_gradient_reduces_the_loss():
    z = mg.tensor(cplx(5), requires_grad=True)
    target = mg.tensor(cplx(5))

    def loss():
        d = z - target
        return (d.real ** 2 + d.imag ** 2).sum()

    before = loss().item()
    for _ in range(20):
        z.grad = None
        loss().backward()
        with mg.no_grad():
            z -= 0.1 * z.grad
    assert loss().item() < 1e-3 * before


def test_a_complex_output_needs_an_explicit_gradient():
    z = mg.tensor([1 + 1j], requires_grad=True)
    with pytest.raises(RuntimeError, match="only for real outputs.*gradient="):
        (z * 1.0).sum().backward()
    mg.fft.fft(z).backward(gradient=mg.tensor([1j]))
    np.testing.assert_allclose(z.grad.numpy(), [1j])


def test_a_real_input_keeps_the_real_part_of_a_complex_gradient():
    x = mg.tensor([2.0, -1.0], dtype="float64", requires_grad=True)
    z = x * (1 + 2j)  # promoted to complex
    (z.imag).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    assert x.grad.dtype == np.float64


@pytest.mark.parametrize("call", [
    lambda z: z < 1, lambda z: z <= z, lambda z: z > 0, lambda z: z >= z, lambda z: mg.maximum(z, z),
    lambda z: mg.minimum(z, 1.0), lambda z: mg.max(z), lambda z: mg.min(z, axis=0), lambda z: mg.sort(z),
    lambda z: mg.argsort(z), lambda z: mg.clip(z, 0, 1), lambda z: mg.argmax(z), lambda z: mg.argmin(z),
    lambda z: mg.tensor([1.0]) < 2j,
], ids=["lt", "le", "gt", "ge", "maximum", "minimum", "max", "min", "sort", "argsort", "clip", "argmax",
        "argmin", "python-complex"])
def test_orderings_refuse_complex_naming_the_op(call):
    z = mg.tensor([1 + 2j, 3j])
    with pytest.raises(TypeError, match="complex numbers have no order"):
        call(z)


def test_equality_works():
    z = mg.tensor([1 + 2j, 3j])
    np.testing.assert_array_equal((z == mg.tensor([1 + 2j, 3.0])).numpy(), [True, False])
    np.testing.assert_array_equal((z != 3j).numpy(), [True, False])


@pytest.mark.parametrize("device", ["strict", "strict-f32"])
def test_strict_device_carries_complex_bit_exactly(device):
    dt = "complex64" if device == "strict-f32" else "complex128"
    a = cplx(2, 3).astype(dt)
    results = []
    for dev in ("cpu", device):
        z = mg.tensor(a, device=dev, requires_grad=True)
        w = mg.polar(mg.abs(z), mg.angle(z) * 2) + z.conj()
        loss = (w.real * w.imag).sum() + mg.view_as_real(z).sum()
        loss.backward()
        results.append((w.numpy(), z.grad.numpy()))
    for got, want in zip(results[1], results[0]):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_complex_through_save_load_and_snapshots(tmp_path):
    z = mg.tensor(cplx(3).astype("complex64"), requires_grad=True)
    mg.save({"z": z, "raw": cplx(2)}, tmp_path / "z.mg")
    back = mg.load(tmp_path / "z.mg")
    assert back["z"].dtype == np.complex64 and back["z"].requires_grad
    np.testing.assert_array_equal(back["z"].numpy(), z.numpy())
    assert back["raw"].dtype == np.complex128


@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("left", [True, False])
def test_complex_triangular_solves(trans, lower, left):
    # solve_triangular, cholesky_solve and cholesky_inverse refused complex matrices (NotImplementedError);
    # trans 'T' is the transpose, 'C' the conjugate transpose (SciPy's meaning), left=False solves x op(T) = b
    a = cplx(3, 3) + 3 * np.eye(3)
    b = cplx(3, 2) if left else cplx(2, 3)
    t = np.tril(a) if lower else np.triu(a)
    op = {"N": t, "T": t.T, "C": t.conj().T}[{0: "N", 1: "T", 2: "C"}.get(trans, trans)]
    x = mg.linalg.solve_triangular(mg.tensor(a), mg.tensor(b), trans=trans, lower=lower, left=left).numpy()
    np.testing.assert_allclose(op @ x if left else x @ op, b, atol=1e-12)
    if trans in (0, 2):
        z = mg.tensor(a, requires_grad=True)
        gradcheck(lambda m, r: mg.linalg.solve_triangular(m, r, trans=trans, lower=lower, left=left),
                  (z, mg.tensor(b, requires_grad=True)))


def test_a_real_triangle_solves_a_complex_right_hand_side():
    # torch.linalg.solve_triangular(real A, complex B) returns a *real* tensor (torch 2.13 drops B's
    # imaginary part: [[2, 0], [0, 2]] \ [[1+1j], [2j]] is [[0.5], [0.]]); the solution is complex
    x = mg.linalg.solve_triangular(mg.tensor(np.eye(2) * 2), mg.tensor([[1 + 1j], [2j]]), upper=True)
    assert x.dtype == mg.complex128 and x.tolist() == [[0.5 + 0.5j], [1j]]


def test_complex_cholesky_solves_have_exact_derivatives():
    m = mg.tensor(cplx(3, 3) + 6 * np.eye(3), requires_grad=True)
    rhs = mg.tensor(cplx(3, 2), requires_grad=True)

    def spd(x):
        return (x + x.mH) / 2

    for upper in (False, True):
        gradcheck(lambda x, y, up=upper: mg.linalg.cholesky_solve(y, mg.linalg.cholesky(spd(x), upper=up), upper=up),
                  (m, rhs))
    gradgradcheck(lambda x: mg.linalg.cholesky_inverse(mg.linalg.cholesky(spd(x))), (m,), modes=("rev",))
    solution = mg.linalg.cholesky_solve(rhs, mg.linalg.cholesky(spd(m)))
    np.testing.assert_allclose((spd(m) @ solution).numpy(), rhs.numpy(), atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (2, 5), (2, 3, 3)])
def test_complex_pseudo_inverse_has_exact_derivatives(shape):
    # it refused complex input (NotImplementedError); tests/test_complex_vs_torch.py has PyTorch's numbers
    a = mg.tensor(rng.standard_normal(shape) + 1j * rng.standard_normal(shape), requires_grad=True)
    gradcheck(mg.linalg.pinv, (a,), modes=("rev", "fwd"))
    gradgradcheck(mg.linalg.pinv, (a,), modes=("rev",))
    b = mg.tensor(rng.standard_normal(shape[:-1] + (2,)) + 1j, requires_grad=True)
    gradcheck(lambda m, r: mg.linalg.lstsq(m, r).solution, (a, b))


@pytest.mark.parametrize("device", ["cpu", "strict-f32"])
def test_complex64_pseudo_inverse_and_residuals_stay_single_precision(device):
    a = mg.tensor((rng.standard_normal((5, 3)) + 1j * rng.standard_normal((5, 3))).astype("complex64"),
                  device=device, requires_grad=True)
    p = mg.linalg.pinv(a)
    assert p.dtype == mg.complex64
    np.testing.assert_allclose((p @ a).numpy(), np.eye(3), atol=1e-5)
    p.abs().sum().backward()
    assert a.grad.dtype == mg.complex64
    b = mg.tensor(np.ones((5, 2), "complex64") * 1j, device=device)
    residuals = mg.linalg.lstsq(a.detach(), b).residuals  # squared norms |b - a x|^2: real, as PyTorch's
    assert residuals.dtype == mg.float32 and residuals.shape == (2,)
    x = mg.linalg.lstsq(a.detach(), b).solution
    np.testing.assert_allclose(residuals.numpy(), (np.abs((a.detach() @ x - b).numpy()) ** 2).sum(0), rtol=1e-4)


def test_holomorphic_linalg_takes_complex():
    a = mg.tensor(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)) + 3 * np.eye(3),
                  requires_grad=True)
    gradcheck(lambda m: mg.linalg.matrix_power(m, -2), (a,))
    np.testing.assert_allclose(mg.linalg.inv(a).numpy(), np.linalg.inv(a.numpy()))


def test_check_op_runs_its_battery_on_complex_functions():
    from minigrad_ckpt.testing import check_op

    z = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    ran = check_op(lambda t: mg.fft.fft(t * t.conj() + mg.exp(t)), z,
                   reference=lambda np, t: np.fft.fft(t * np.conj(t) + np.exp(t)))
    assert {"forward", "gradcheck", "gradgradcheck", "noncontiguous", "float32"} <= set(ran)


def test_check_op_catches_a_complex_gradient_without_the_conjugate():
    from minigrad_ckpt.ops import Op
    from minigrad_ckpt.tape import apply
    from minigrad_ckpt.testing import GradcheckError, check_op

    class TimesIUnconjugated(Op):  # claims its backward handles complex, but forgets the conjugate
        name = "TimesIUnconjugatedForTest"
        holomorphic = False
        save_inputs = False

        def forward(self, xp, z):
            return z * 1j

        def backward(self, xp, g, out, z):
            return g * 1j  # right: g * conj(1j) = -1j * g

        def jvp(self, xp, tangents, out, z):
            return tangents[0] * 1j

        def reference(self, np, z):
            return z * 1j

    try:
        with pytest.raises(GradcheckError, match="imaginary part"):
            check_op(lambda t: apply(TimesIUnconjugated(), t), rng.standard_normal(3) + 1j)
    finally:
        mg.ops.registry.pop("TimesIUnconjugatedForTest", None)


#: torch.sigmoid(z) and torch.nn.functional.silu(z) for Z_LOGISTIC in complex128 (NaN where exp(-z)
#: overflows, as there); they raised, and silu answered z * sigmoid(|z|)-like nonsense, before
Z_LOGISTIC = [1 + 2j, -0.5 + 0.3j, -1000 + 1j, 3j]
TORCH_SIGMOID = [1.0214153641721806 + 0.40343870608154253j, 0.3749148587844171 + 0.07093747802480527j,
                 complex("nan+nanj"), 0.5000000000000021 + 7.050709973585859j]
TORCH_SILU = [0.21453795200909553 + 2.4462694344259037j, -0.20873867279965014 + 0.07700571862292249j,
              complex("nan+nanj"), -21.152129920757577 + 1.5000000000000062j]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_sigmoid_and_silu_of_complex_input_are_pytorchs(dtype, device):
    z = mg.tensor(np.array(Z_LOGISTIC, dtype=dtype), device=device)
    tol = 1e-6 if dtype == "complex64" else 1e-13
    for got, want in ((mg.sigmoid(z), TORCH_SIGMOID), (z.sigmoid(), TORCH_SIGMOID), (mg.nn.Sigmoid()(z), TORCH_SIGMOID),
                      (mg.special.expit(z), TORCH_SIGMOID), (mg.nn.functional.silu(z), TORCH_SILU),
                      (mg.nn.SiLU()(z), TORCH_SILU)):
        assert got.dtype == dtype
        np.testing.assert_allclose(got.numpy(), np.array(want, dtype=dtype), rtol=tol, atol=tol)


def test_silu_of_complex_input_has_exact_derivatives():
    # PyTorch has no complex derivative of silu: central differences, both modes and the second order
    z = mg.tensor(rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)), requires_grad=True)
    gradcheck(mg.nn.functional.silu, (z,), modes=("rev", "fwd"))
    gradgradcheck(mg.nn.functional.silu, (z,), modes=("rev",))


@pytest.mark.parametrize("fn", [
    lambda t: mg.var(t, axis=0), lambda t: mg.std(t), lambda t: t ** 2, lambda t: mg.prod(t, axis=1),
    lambda t: mg.cumprod(t, axis=1), lambda t: mg.sinh(t), lambda t: mg.arctan(t), lambda t: mg.log1p(t),
    lambda t: mg.expm1(t), lambda t: mg.tensordot(t, t, axes=([1], [1])), lambda t: t[[0, 0, 2], 1:],
    lambda t: mg.where(mg.tensor(np.eye(3, 4) > 0), t, t * 2), lambda t: mg.sinc(t), lambda t: 1 / (1 + mg.exp(-t)),
], ids=["var", "std", "square", "prod", "cumprod", "sinh", "arctan", "log1p", "expm1", "tensordot", "getitem",
        "where", "sinc", "logistic"])
def test_more_complex_capable_functions_against_central_differences(fn):
    z = mg.tensor(rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)), requires_grad=True)
    gradcheck(fn, (z,))


@pytest.mark.parametrize("name", ["erfinv", "erfcinv", "gammaln", "digamma", "gamma", "logit",
                                  "xlogy", "xlog1py", "betaln", "polygamma"])
def test_real_special_functions_refuse_complex(name):
    """Their kernels are written for the real line: given complex numbers they returned wrong
    values (erfinv dropped the imaginary part).  ``erf`` and ``erfc`` take complex numbers
    (tests/test_special_complex.py): ``erf(1+1j)`` is 1.32+0.19j (it was 1.14+0.31j)."""
    assert np.allclose(mg.erf(mg.tensor([1.0 + 1.0j], dtype="complex128")).numpy(),
                       1.3161512816979477 + 0.19045346923783471j, rtol=1e-14)
    z = mg.tensor([1.0 + 1.0j])
    args = {"xlogy": (z, z), "xlog1py": (z, z), "betaln": (z, z), "polygamma": (1, z)}.get(name, (z,))
    with pytest.raises(TypeError, match=f"{name}: implemented for real arguments only"):
        getattr(mg.special, name)(*args)


def test_func_grad_refuses_a_complex_output_as_backward_does():
    z = mg.tensor([1.0 + 2.0j])
    with pytest.raises(RuntimeError, match="grad: the function returns a complex tensor"):
        mg.func.grad(lambda t: (t * t).sum())(z)
    assert np.allclose(mg.func.grad(lambda t: (mg.abs(t) ** 2).sum())(z).numpy(), 2 * z.numpy())


@pytest.mark.parametrize("case", ["tensor**complex", "real**complex", "complex**tensor", "complex**real",
                                  "tensor**tensor", "real**tensor", "negative**tensor", "tensor**real"])
def test_power_with_a_complex_exponent(case):
    """``x ** y`` with complex ``y`` (a Python complex or a tensor): the derivative in ``y``
    is ``x ** y log x`` with the principal logarithm, also for a negative real base (these
    raised TypeError: a Python complex exponent was taken for an array, and ``y >= 0`` has
    no meaning for complex ``y``)."""
    z = mg.tensor(rng.uniform(0.5, 2, 3) + 0.3j * rng.standard_normal(3), requires_grad=True)
    r = mg.tensor(rng.uniform(0.5, 2, 3), requires_grad=True)
    neg = mg.tensor(-rng.uniform(0.5, 2, 3), requires_grad=True)
    w = mg.tensor(rng.standard_normal(3) + 1j * rng.standard_normal(3), requires_grad=True)
    s = mg.tensor(rng.standard_normal(3), requires_grad=True)
    fn, args = {
        "tensor**complex": (lambda a: a ** (1.5 + 0.5j), (z,)), "real**complex": (lambda a: a ** (1.5 + 0.5j), (r,)),
        "complex**tensor": (lambda b: (2 + 1j) ** b, (w,)), "complex**real": (lambda b: (2 + 1j) ** b, (s,)),
        "tensor**tensor": (lambda a, b: a ** b, (z, w)), "real**tensor": (lambda a, b: a ** b, (r, w)),
        "negative**tensor": (lambda a, b: a ** b, (neg, w)), "tensor**real": (lambda a, b: a ** b, (z, s)),
    }[case]
    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)
    want = np.power(*[a.numpy() for a in args]) if len(args) == 2 else None
    if want is not None:
        np.testing.assert_allclose(fn(*args).numpy(), want, rtol=1e-14)


def test_power_of_a_negative_real_number_with_a_complex_exponent():
    """``(-2.0) ** z``: the principal logarithm, log 2 + i pi, as a 0-d complex base gives (not NaN)."""
    z = mg.tensor(np.array([0.5 + 0.25j, 1.5 - 1.0j]), requires_grad=True)
    assert gradcheck(lambda t: (-2.0) ** t, [z], modes=("rev", "fwd"))
    (g,) = mg.grad((mg.abs((-2.0) ** z) ** 2).sum(), [z])
    (h,) = mg.grad((mg.abs(mg.tensor(np.complex128(-2.0)) ** z) ** 2).sum(), [z])
    np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-12)


def test_arccosh_left_of_the_imaginary_axis_has_its_own_derivative():
    """arccosh's principal branch differentiates to 1 / (sqrt(z - 1) sqrt(z + 1)), which is
    -1 / sqrt(z^2 - 1) where Re z < 0: the real formula gave the gradient's negative there.
    PyTorch's: z = torch.tensor(points, dtype=torch.complex128, requires_grad=True);
    y = torch.acosh(z); (y.real.sum() + 2 * y.imag.sum()).backward(); z.grad."""
    points = np.array([-2 + 0.5j, -0.5 - 1j, 1.5 + 2j, -3 - 0.1j])
    torch_grad = np.array([-0.85111915 - 0.86372764j, 1.18075971 - 1.04235368j,
                           -0.44497445 + 0.74803192j, -0.32655644 - 0.71929558j])
    z = mg.tensor(points, requires_grad=True)
    y = mg.arccosh(z)
    (y.real.sum() + 2 * y.imag.sum()).backward()
    np.testing.assert_allclose(z.grad.numpy(), torch_grad, atol=1e-8)
    # forward mode states the same derivative: jvp along t is the central difference
    t, h = np.array([0.3 - 0.2j, 1j, -0.4 + 0.1j, 0.5 + 0.5j]), 1e-6
    _, jv = mg.func.jvp(mg.arccosh, (mg.tensor(points),), (mg.tensor(t),))
    np.testing.assert_allclose(jv.numpy(), (np.arccosh(points + h * t) - np.arccosh(points - h * t)) / (2 * h),
                               atol=1e-8)
    assert gradgradcheck(mg.arccosh, (mg.tensor(points, requires_grad=True),))


def test_logsumexp_of_complex_numbers_is_the_principal_logarithm():
    """The max shift takes the real parts only: shifting by a complex maximum added its
    imaginary part to the phase of the sum, off by 2 pi i in the first row here.
    PyTorch's: torch.logsumexp(torch.tensor(x, dtype=torch.complex128), 1)."""
    x = np.array([[1.0 + 3.0j, 1.0 - 3.0j, 0.9 - 2.5j], [1.0 + 0.5j, 3.0 + 2.9j, 2.5 - 3.1j]])
    torch_value = np.array([2.01471005 - 2.94400441j, 3.39516619 + 2.95260303j])
    for dt in ("complex128", "complex64"):
        got = mg.logsumexp(mg.tensor(x.astype(dt)), 1)
        assert got.dtype == np.dtype(dt)
        np.testing.assert_allclose(got.numpy(), torch_value, rtol=1e-6)
        np.testing.assert_allclose(mg.logsumexp(mg.tensor(x.astype(dt)), 1, keepdims=True).numpy()[:, 0],
                                   torch_value, rtol=1e-6)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_real_and_imag_are_views_that_writes_go_through(device):
    """z.real and z.imag are views, as PyTorch's: a write into them is a write into z. They
    were copies, so each write below silently changed nothing (an initialisation such as
    p.imag.zero_() left the parameter as it was). PyTorch's: z = torch.tensor([1+1j, 2+2j]);
    z.real[0] = 5; z.imag.mul_(3); z is [5+3j, 2+6j]."""
    z = mg.tensor([1 + 1j, 2 + 2j], device=device)
    z.real[0] = 5
    z.imag.mul_(3)
    np.testing.assert_array_equal(z.numpy(), [5 + 3j, 2 + 6j])
    p = mg.tensor([1 + 1j, 2 - 2j], requires_grad=True, device=device)
    with mg.no_grad():
        p.imag.zero_()
        p.real.add_(1)
    np.testing.assert_array_equal(p.numpy(), [2, 3])
    assert p.requires_grad and p.dtype == np.complex64


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("write", [
    lambda t: t.fill_(1.0), lambda t: t.zero_(), lambda t: t.__setitem__(0, 5.0), lambda t: t.add_(1.0),
    lambda t: t.mul_(2.0), lambda t: t.copy_(mg.ones(t.shape, device=t.device)), lambda t: t.normal_(),
    lambda t: t.__setitem__((slice(None), 1), mg.ones(2, device=t.device)),
], ids=["fill_", "zero_", "setitem", "add_", "mul_", "copy_", "normal_", "setitem slice"])
def test_a_write_into_the_imaginary_part_of_a_real_tensor_is_refused_not_lost(write, device):
    """x.imag of a real x is zeros that are no part of x (NumPy's; PyTorch refuses to read it):
    a write into them was taken and lost -- x.imag.fill_(1) changed nothing, silently. They
    cannot be written now, as NumPy's ``np.zeros(3).imag`` cannot."""
    x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device)
    for imag in (x.imag, mg.imag(x)):
        with pytest.raises((ValueError, RuntimeError)):
            write(imag)
        np.testing.assert_array_equal(imag.numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(x.numpy(), [[1, 2, 3], [4, 5, 6]])
    # reading them is unchanged: zeros of x's dtype and shape, to compute with (and to copy, then write)
    assert x.imag.dtype == x.dtype and x.imag.shape == (2, 3)
    np.testing.assert_array_equal((x.imag + x).numpy(), x.numpy())
    np.testing.assert_array_equal(x.imag.clone().fill_(2.0).numpy(), np.full((2, 3), 2.0))
    with pytest.raises(RuntimeError, match="non-complex"):
        x.imag = mg.ones(2, 3, device=device)  # (the setter already refused)


def test_a_view_of_the_parts_shares_the_version_counter():
    z = mg.tensor([1 + 1j, 2 + 2j])
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (z.real * x).sum()  # saves z.real for x's gradient
    z.mul_(2)  # changes z.real too
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.backward()
    # forward mode: a write into the part of a tensor that carries a tangent carries it (the real
    # part's tangent doubles with the real part; see tests/test_forward_mode_complex_part_views.py)
    def f(v):
        w = v * 1
        w.real.mul_(2)
        return w
    out, tangent = mg.func.jvp(f, (mg.tensor([1 + 1j]),), (mg.tensor([1 + 1j]),))
    assert out.tolist() == [2 + 1j] and tangent.tolist() == [2 + 1j]


MASK = mg.tensor([False, True])


@pytest.mark.parametrize("write", [
    lambda x: x.masked_fill_(MASK, 2j),
    lambda x: x.index_fill_(0, mg.tensor([1]), 1j),
    lambda x: x.lerp_(mg.tensor([1j, 1j]), 0.5),
    lambda x: x.masked_scatter_(MASK, mg.tensor([3j])),
    lambda x: x.scatter_(0, mg.tensor([1]), mg.tensor([3j])),
    lambda x: x.index_put_((mg.tensor([1]),), mg.tensor([3j]), accumulate=True),
    lambda x: x.index_copy(0, mg.tensor([1]), mg.tensor([3j])),
    lambda x: x.scatter_reduce(0, mg.tensor([1]), mg.tensor([3j]), "sum"),
])
def test_complex_values_written_into_a_real_tensor_are_refused(write):
    """Writing complex values into a real tensor dropped their imaginary parts with only
    NumPy's ComplexWarning: x.<op>_(...) is x.copy_(x.<op>(...)), and the scatter family
    casts the values to the written tensor's dtype. PyTorch refuses each
    (x.masked_fill_(mask, 2j): 'value cannot be converted to type float';
    x.masked_scatter_(mask, src): 'expected self and source to have same dtypes')."""
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="imaginary part|expected dtype"):  # (lerp: PyTorch's dtype check first)
        write(x)
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])
    z = mg.tensor([1.0 + 0j, 2.0])  # into a complex tensor the same writes are fine
    assert write(z).numpy()[1].imag != 0


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_view_as_real_and_view_as_complex_are_views(device):
    """Both were copies, so writing into their result silently changed nothing. PyTorch's:
    z = torch.tensor([1+1j, 2+2j]); torch.view_as_real(z)[0, 1] = 7 makes z [1+7j, 2+2j];
    x = torch.tensor([[1., 2.], [3., 4.]]); torch.view_as_complex(x)[0] = 9j makes x [[0, 9], [3, 4]]."""
    z = mg.tensor(np.array([1 + 1j, 2 + 2j], dtype=np.complex64), device=device)
    pairs = mg.view_as_real(z)
    pairs[0, 1] = 7
    np.testing.assert_array_equal(z.numpy(), [1 + 7j, 2 + 2j])
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    numbers = mg.view_as_complex(x)
    numbers[0] = 9j
    np.testing.assert_array_equal(x.numpy(), [[0, 9], [3, 4]])
    assert numbers.dtype == np.complex64 and pairs.dtype == np.float32
    # a transpose: view_as_real is a view still (tests/test_complex_numbers.py::
    # test_view_as_real_of_any_strides_is_a_view); view_as_complex of pairs not adjacent copies
    w = mg.tensor((np.arange(6.0).reshape(2, 3, 1) * (1 + 1j)).astype(np.complex64), device=device)
    np.testing.assert_array_equal(mg.view_as_real(w.mT).numpy(), mg.view_as_real(w).numpy().transpose(0, 2, 1, 3))
    t = mg.tensor(np.arange(12.0, dtype=np.float32).reshape(2, 2, 3), device=device).mT
    np.testing.assert_array_equal(mg.view_as_complex(t).numpy(), t.numpy()[..., 0] + 1j * t.numpy()[..., 1])


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("select", [lambda z: z.mT, lambda z: z[:, ::2], lambda z: z[1, 2], lambda z: z.mT[::-1],
                                    lambda z: z.unsqueeze(1)[:, :, 1:]],
                         ids=["mT", "step", "0-d", "reversed", "unsqueezed slice"])
def test_view_as_real_of_any_strides_is_a_view(select, device):
    """A complex number's two parts are adjacent in memory whatever the tensor's strides, so
    PyTorch's view_as_real is a view of every complex tensor. Here a tensor whose last axis was
    not contiguous (z.mT, z[:, ::2]) got a copy, and a write into it silently changed nothing:
    torch: z = torch.zeros(2, 3, dtype=torch.cfloat); torch.view_as_real(z[:, ::2]).add_(1)
    makes z[:, ::2] 1+1j."""
    z = mg.tensor((np.arange(6).reshape(2, 3) * (1 + 2j)).astype(np.complex64), device=device)
    want = z.numpy().copy()
    pairs = mg.view_as_real(select(z))
    np.testing.assert_array_equal(pairs.numpy(), mg.view_as_real(select(z).clone()).numpy())
    assert pairs.dtype == mg.float32 and pairs.shape == select(z).shape + (2,)
    pairs.mul_(-1)  # the selected numbers of z negated, the others as they were
    np.testing.assert_array_equal(select(z).numpy(), -select(mg.tensor(want)).numpy())
    assert (z.numpy() != want).sum() == (select(mg.tensor(want)).numpy() != 0).sum()


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_a_write_into_the_copy_of_pairs_not_adjacent_is_refused_not_lost(device):
    """view_as_complex of pairs whose parts are not adjacent (x.mT of a (2, k) tensor) has no
    view: PyTorch refuses it ("Tensor must have a last dimension with stride 1"), the engine
    copies. A write into that copy was taken and lost; the copy is read-only now."""
    x = mg.zeros(2, 3, device=device).mT
    numbers = mg.view_as_complex(x)
    np.testing.assert_array_equal((numbers * 2 + 1j).numpy(), np.full(3, 1j))  # reading is unchanged
    for write in (lambda t: t.add_(1), lambda t: t.__setitem__(0, 1j), lambda t: t.fill_(2j),
                  lambda t: t.copy_(mg.ones(3, dtype=mg.complex64, device=device))):
        with pytest.raises(ValueError, match="read-only"):
            write(numbers)
    np.testing.assert_array_equal(x.numpy(), np.zeros((3, 2)))
    # adjacent pairs are a view, written through, as PyTorch's
    y = mg.zeros(3, 2, device=device)
    mg.view_as_complex(y)[1] = 2 + 3j
    np.testing.assert_array_equal(y.numpy(), [[0, 0], [2, 3], [0, 0]])


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_conj_of_a_complex_tensor_is_a_copy_that_never_writes_back(device):
    # The engine's choice (docs/complex.md): PyTorch's z.conj() is a lazy view (a write into it
    # reaches z conjugated); NumPy has no such view, so conj, mH, H and adjoint of a complex tensor
    # copy. Neither side of the copy changes the other; conj of a real tensor is the tensor itself
    # and mH/H of a real matrix its transposed view, as PyTorch's.
    z = mg.tensor([[1 + 1j, 2 + 2j], [3 - 1j, 4j]], device=device)
    copies = [z.conj(), mg.conj(z), z.mH, z.adjoint(), z.conj_physical()]
    for c in copies:
        c[0, 0] = 9
    np.testing.assert_array_equal(z.numpy()[0, 0], 1 + 1j)
    z[1, 1] = 5
    assert all(c.numpy()[1, 1] == -4j for c in copies)
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    assert x.conj() is x
    x.mH[0, 1] = 7
    assert x.numpy()[1, 0] == 7


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_assigning_the_parts(device):
    # torch: z.real = t and z.imag = v write into z (they raised AttributeError: no setter); a real x's
    # imag has nothing to write into (RuntimeError); a leaf that requires grad refuses, under no_grad it takes it
    z = mg.tensor([1 + 2j, 3j], device=device)
    z.real = mg.tensor([5.0, 6.0], device=device)
    assert z.tolist() == [5 + 2j, 6 + 3j]
    z.imag = 0
    assert z.tolist() == [5, 6] and z.dtype == mg.complex64
    z.real = mg.tensor([7.0], device=device)  # broadcast
    assert z.tolist() == [7, 7]
    x = mg.tensor([1.0, 2.0], device=device)
    x.real = mg.tensor([3.0, 4.0], device=device)
    assert x.tolist() == [3, 4]
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        x.imag = mg.tensor([1.0, 1.0], device=device)
    leaf = mg.tensor([1 + 2j], device=device, requires_grad=True)
    with pytest.raises(RuntimeError):
        leaf.real = mg.tensor([1.0], device=device)
    with mg.no_grad():
        leaf.imag = 5.0
    assert leaf.tolist() == [1 + 5j] and leaf.requires_grad


def test_pytorchs_top_level_cholesky_solve_and_inverse():
    # torch.cholesky_solve(B, L, upper=False) and torch.cholesky_inverse(L, upper=False) (AttributeError before)
    h = cplx(3, 3)
    a = h @ h.conj().T + 3 * np.eye(3)
    factor = mg.linalg.cholesky(mg.tensor(a))
    b = mg.tensor(cplx(3, 2))
    np.testing.assert_allclose(mg.cholesky_solve(b, factor).numpy(), np.linalg.solve(a, b.numpy()), atol=1e-12)
    np.testing.assert_allclose(mg.cholesky_inverse(factor).numpy(), np.linalg.inv(a), atol=1e-12)
    upper = mg.linalg.cholesky(mg.tensor(a), upper=True)
    np.testing.assert_allclose(mg.cholesky_inverse(upper, upper=True).numpy(), np.linalg.inv(a), atol=1e-12)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("method", ["abs_", "absolute_"])
def test_in_place_abs_of_a_complex_tensor_is_refused(method, device):
    """torch 2.13: z.abs_() of a complex z is "In-place abs is not supported for complex tensors"
    (a RuntimeError); here it wrote |z| into z as a complex number with imaginary part 0."""
    z = mg.tensor([3 + 4j, 1 - 1j], device=device)
    with pytest.raises(RuntimeError, match=f"{method}: .*the phase would be lost"):
        getattr(z, method)()
    np.testing.assert_array_equal(z.numpy(), [3 + 4j, 1 - 1j])
    # the in-place twins whose result stays complex still write, and abs_ of a real tensor works
    np.testing.assert_allclose(z.clone().sgn_().numpy(), [0.6 + 0.8j, (1 - 1j) / 2 ** 0.5], rtol=1e-6)
    np.testing.assert_array_equal(z.clone().eq_(z[0]).numpy(), [1, 0])
    np.testing.assert_array_equal(mg.tensor([-2.0, 3.0], device=device).abs_().numpy(), [2.0, 3.0])


def _complex_array(pairs) -> np.ndarray:
    a = np.asarray(pairs, dtype=float)
    return a[..., 0] + 1j * a[..., 1]


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_logaddexp_of_complex_numbers_is_pytorchs(device):
    """torch 2.13's logaddexp takes complex numbers (values, gradients: made offline by
    tests/data/make_torch_complex_logaddexp.py); here NumPy's real-only ufunc refused them
    (TypeError "ufunc 'logaddexp' not supported for the input types"). logaddexp2 stays refused,
    as PyTorch's ("logaddexp2_cpu" not implemented for ComplexFloat)."""
    import json
    from pathlib import Path
    ref = json.loads((Path(__file__).parent / "data" / "torch_complex_logaddexp.json").read_text())
    a0, b0 = _complex_array(ref["a"]), _complex_array(ref["b"])
    a = mg.tensor(a0, device=device, requires_grad=True)
    b = mg.tensor(b0, device=device, requires_grad=True)
    out = mg.logaddexp(a, b)
    assert out.dtype == mg.complex128
    np.testing.assert_allclose(out.numpy(), _complex_array(ref["out"]), rtol=1e-13, atol=1e-13)
    ga, gb = mg.grad(out, [a, b], grad_outputs=mg.tensor(_complex_array(ref["cot"]), device=device))
    np.testing.assert_allclose(ga.numpy(), _complex_array(ref["grad_a"]), rtol=1e-12, atol=1e-13)
    want_b = _complex_array(ref["grad_b"])
    # torch's gradient for b[0] = -1000+2j beside a[0, 0] = 1000+1j is NaN; the derivative there is
    # exp(-2000), 0 (its other terms are as small: b[0] is negligible in every row)
    assert np.isnan(want_b[0]) and abs(gb.numpy()[0]) < 1e-12
    np.testing.assert_allclose(gb.numpy()[1:], want_b[1:], rtol=1e-12, atol=1e-13)
    out64 = mg.logaddexp(mg.tensor(a0.astype(np.complex64), device=device), mg.tensor(b0.astype(np.complex64),
                                                                                     device=device))
    assert out64.dtype == mg.complex64
    np.testing.assert_allclose(out64.numpy(), _complex_array(ref["out64"]), rtol=2e-6, atol=2e-4)
    inf_parts = [np.array([[float(p) for p in v] for v in ref[k]]) for k in ("inf_a", "inf_b", "inf_out")]
    ia, ib, io = (_complex_array(p) for p in inf_parts)
    with np.errstate(all="raise"):
        got = mg.logaddexp(mg.tensor(ia, device=device), mg.tensor(ib, device=device)).numpy()
    np.testing.assert_array_equal(got, io)
    # (row 1 holds a sum on log's branch cut, where the imaginary part jumps by 2 pi: left out)
    assert gradcheck(mg.logaddexp, (mg.tensor(a0[2:], requires_grad=True), mg.tensor(b0, requires_grad=True)),
                     kinks="fail")
    with pytest.raises(TypeError):
        mg.logaddexp2(a, b)


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
def test_polar_takes_float_tensors_of_one_dtype_as_pytorch(device):
    # torch 2.13: torch.polar(tensor([1]), tensor([0])) -> RuntimeError "Expected both inputs to be Half, Float or
    # Double tensors but got Long and Long"; polar(float64, float32) -> RuntimeError "Expected object of scalar
    # type Double but got scalar type Float for second argument".  mg.polar answered complex64 [1+0j] and
    # complex128, where mg.complex refused both pairs (a TypeError)
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    f32 = mg.tensor([2.0], device=device)
    with pytest.raises(TypeError, match=r"^polar: Expected both .* Long and Long \(abs must be a float tensor"):
        mg.polar(mg.tensor([1], device=device), mg.tensor([0], device=device))
    with pytest.raises(TypeError, match=r"^polar: Expected both .* Float and Long \(angle must be a float tensor"):
        mg.polar(f32, mg.tensor([0], device=device))
    if device != "strict-f32":
        with pytest.raises(TypeError, match=r"^polar: Expected object of scalar type Double .* \(abs and angle"):
            mg.polar(mg.tensor([2.0], dtype="float64", device=device), mg.tensor([1.0], device=device))
    angle = mg.tensor([0.0, np.pi / 2], device=device, requires_grad=True)
    w = mg.polar(f32, angle)  # broadcast, complex64, differentiable in the angle
    assert w.dtype == mg.complex64 and w.shape == (2,)
    np.testing.assert_allclose(w.detach().numpy(), [2, 2j], atol=1e-6)
    w.imag.sum().backward()
    np.testing.assert_allclose(angle.grad.numpy(), [2.0, 0.0], atol=1e-6)


@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"),
                                           ("strict-f32", "float32")])
def test_a_complex_fill_value_on_the_real_axis_fills_a_real_tensor(device, dtype):
    # torch 2.13: x.masked_fill(mask, 2+0j) and x.scatter(0, idx, 2+0j) of a real x write 2 (a complex number
    # converts where its imaginary part is 0; 2+1j is 'value cannot be converted to type float without
    # overflow'); masked_fill with the 0-d tensor tensor(2+0j, requires_grad=True) too, its gradient 5+0j for
    # (out * [1, 2, 3]).sum(); index_fill converts no complex number ('Converting complex Scalar to
    # non-complex type is not supported').  The engine refused every complex value.
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    cdtype = "complex128" if dtype == "float64" else "complex64"
    x = mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device, requires_grad=True)
    mask = x.detach() > 1
    assert x.masked_fill(mask, 2 + 0j).tolist() == [1.0, 2.0, 2.0]
    assert x.detach().scatter(0, mg.tensor([0], device=device), 2 + 0j).tolist() == [2.0, 2.0, 3.0]
    value = mg.tensor(2 + 0j, dtype=cdtype, device=device, requires_grad=True)
    out = x.masked_fill(mask, value)
    assert out.dtype == x.dtype and out.tolist() == [1.0, 2.0, 2.0]
    (out * mg.tensor([1.0, 2.0, 3.0], dtype=dtype, device=device)).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0] and value.grad.dtype == cdtype and value.grad.item() == 5 + 0j
    y = x.detach().clone()
    y.masked_fill_(mask, 4 + 0j)
    assert y.tolist() == [1.0, 4.0, 4.0]
    for write in (lambda t: t.masked_fill(mask, 2 + 1j), lambda t: t.scatter(0, mg.tensor([0], device=device), 1j),
                  lambda t: t.masked_fill(mask, mg.tensor(1j, dtype=cdtype, device=device))):
        with pytest.raises(RuntimeError, match="cannot be converted to type (float|double) without overflow"):
            write(x.detach())
    with pytest.raises(RuntimeError, match="index_fill: converting the complex value"):
        x.detach().index_fill(0, mg.tensor([0], device=device), 2 + 0j)


@pytest.mark.parametrize("bad", [lambda: mg.view_as_complex(mg.tensor([1.0, 2.0, 3.0])),  # last dim not 2
                                 lambda: mg.view_as_complex(mg.tensor(1.0)),  # no dim at all
                                 lambda: mg.view_as_complex(mg.tensor([[1, 2]])),  # integers
                                 lambda: mg.view_as_real(mg.tensor([1.0])),  # not complex
                                 # a per-example slice under vmap is where these meet a 0-d or 1-D input
                                 lambda: mg.func.vmap(mg.view_as_complex)(mg.ones(3)),
                                 lambda: mg.func.vmap(mg.view_as_complex, in_dims=1)(mg.ones(3, 2))])
def test_view_as_complex_and_view_as_real_refuse_with_pytorchs_runtime_error(bad):
    """PyTorch raises RuntimeError for a tensor these views cannot take ("Tensor must have a last
    dimension of size 2", "view_as_real is only supported for complex tensors"); the engine raised
    only TypeError, which ``except RuntimeError`` written for PyTorch does not catch. The refusal is
    both now."""
    with pytest.raises(RuntimeError):
        bad()
    with pytest.raises(TypeError):
        bad()
