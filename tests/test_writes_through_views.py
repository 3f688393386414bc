"""Recorded in-place writes through views: into the memory, with every view's history, as PyTorch's.

``h = model(x); h[:, 0] *= 2`` writes a view of a tensor on the tape.  The change
goes into the memory the view shares with its base and its sibling views, and
each live tensor the write reaches takes the history of its new values
(:mod:`minigrad_ckpt.functional.shared_memory`).  The programs below were run
in PyTorch too; values and gradients agree to float64 round-off.  Where PyTorch
refuses (a value saved for backward written afterwards, a view of a leaf that
requires grad, an expanded view), so does the engine.  Random programs of such
writes: ``property_tests/test_view_write_programs.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

A = [
    [1.5409961082440433, -0.2934289057609464, -2.1787893820745574, 0.5684312772806678],
    [-1.084522342424021, -1.3985953953708767, 0.4033468476292993, 0.8380263329976598],
    [-0.7192575784693592, -0.40334352493217457, -0.5966353626151273, 0.18203648506130554],
]
# (value, gradient of A) of each program below, from torch 2.13 in float64 (the same source run
# with ``torch`` for ``mg``: /tmp/s18/fix.py of the session that wrote this file)
TORCH = {
    "P1": (21.856223628366575, [
        [12.327968865952347, 0.41314218847810724, -2.357578764149115, 4.136862554561335],
        [-8.676178739392167, -2.7971907907417535, 0.8066936952585986, 1.6760526659953197],
        [-5.754060627754874, -0.8066870498643491, -1.1932707252302546, 0.3640729701226111],
    ]),
    "P2": (1.9232301565418817, [
        [0.521712249854522, 2.1473453712060064, 1.9347655323354356, -0.40227711335535477],
        [-2.9812122522431683, -0.6639777252253516, 1.0589444050636219, -2.4284694797605937],
        [-1.6615381755215015, -2.9087840176645, -0.6520822643977375, 2.5636548089294164],
    ]),
    "P3": (12.607011000472696, [
        [5.081992216488087, 1.4131421884781072, 0.0, 0.0],
        [0.0, 0.0, 0.0, 3.6760526659953197],
        [0.5614848430612815, 2.2613097978567382, 1.294838366847635, 2.364072970122611],
    ]),
    "P5": (138.45058558408866, [
        [0.0, -0.5868578115218928, -108.93946910372787, 0.0],
        [-2.169044684848042, 0.0, 0.8066936952585986, 0.0],
        [-35.96287892346796, -20.973863296473073, -1.1932707252302546, 9.101824253065278],
    ]),
    "P6": (2212.059064131745, [
        [4.669239022757736, 0.7457022361126466, 0.11317846361379469, 1.765495305355241],
        [0.0, 0.0, 0.0, 2.3117997482903743],
        [0.0, 0.6680825568840015, 0.0, 1.1996579626757238],
    ]),
    "P7": (31.726310766816212, [
        [15.409961082440432, -2.347431246087571, -17.43031505659646, 0.20936084854925863],
        [0.10468042427462931, 0.0, 0.0, 0.0],
        [-1.4385151569387185, 0.0, 0.0, 0.0],
    ]),
    "P8": (18.979939590222845, [
        [17.71258888157897, -0.5868578115218928, -10.347807230787131, 1.1368625545613356],
        [-2.5219237003861807, -2.7971907907417535, 0.9488240177729979, 1.6760526659953197],
        [-1.9505888003061915, -0.8066870498643491, -0.617316491453188, 0.3640729701226111],
    ]),
}


def p1(a):  # x[:, 0] *= 2 (a view written, then the base written with it); a row view sees it
    x = a * 1
    r = x[0]
    x[:, 0] *= 2
    return (x * x).sum() + (r * mg.arange(4.0, dtype=a.dtype, device=a.device)).sum()


def p2(a):  # a row of a transposed view written; the base read
    x = a * 3
    t = x.t()
    t[1].add_(a[0, :3])
    return x.sin().sum()


def p3(a):  # a flat view zeroed across rows; an overlapping sibling view read
    x = a + 1
    f = x.view(-1)
    s = x[1:, 1:3]
    f[2:7].zero_()
    return (x * x).sum() + (s ** 3).sum()


def p5(a):  # a diagonal view copied into; a stepped slice assigned
    x = a[:3, :3] * 1
    d = x.diagonal()
    d.copy_(a[2, 1:4])
    x[::2, ::2] = x[::2, ::2] * 5
    return (x ** 2).sum()


def p6(a):  # a view of a view clamped, another filled
    x = a * 1
    v = x[1:]
    w = v[:, ::2]
    w.clamp_(-0.5, 0.5)
    v[0, 1:3].fill_(7.0)
    return x.exp().sum() + w.sum()


def p7(a):  # a buffer that does not require grad takes history through its views
    buf = mg.zeros(3, 4, dtype=a.dtype, device=a.device)
    buf[1].copy_(a[0] * 2)
    buf[:, 3] += a[:, 0]
    return (buf ** 2).sum()


def p8(a):  # a column view, unsqueezed, multiplied in place by a tensor that requires grad
    x = a * 1
    col = x[:, 2].unsqueeze(1)
    col.mul_(a[:, :1])
    return (x * x).sum()


PROGRAMS = {"P1": p1, "P2": p2, "P3": p3, "P5": p5, "P6": p6, "P7": p7, "P8": p8}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_agree_with_pytorch(name):
    a = mg.tensor(A, dtype="float64", requires_grad=True)
    loss = PROGRAMS[name](a)
    loss.backward()
    value, grad = TORCH[name]
    np.testing.assert_allclose(loss.item(), value, rtol=1e-13)
    np.testing.assert_allclose(a.grad.numpy(), grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_under_the_transforms_checkpointing_and_float32(name):
    fn = PROGRAMS[name]
    a = mg.tensor(A, dtype="float64", requires_grad=True)
    fn(a).backward()
    np.testing.assert_allclose(mg.func.grad(fn)(mg.tensor(A, dtype="float64")).numpy(), a.grad.numpy(),
                               rtol=1e-13)
    b = mg.tensor(A, dtype="float64", requires_grad=True)
    mg.checkpoint.checkpoint(fn, b).backward()
    np.testing.assert_array_equal(b.grad.numpy(), a.grad.numpy())  # replayed bitwise
    s = mg.tensor(A, dtype="float32", device="strict-f32", requires_grad=True)
    fn(s).backward()
    np.testing.assert_allclose(s.grad.to("cpu").numpy(), a.grad.numpy(), rtol=2e-4, atol=2e-4)
    assert mg.autograd.gradgradcheck(fn, (mg.tensor(A, dtype="float64", requires_grad=True),))


def test_writes_through_unbound_rows_where_pytorch_refuses():
    """PyTorch refuses in-place changes of ``unbind``'s outputs (a multi-output view function); the
    engine records them like any view's: gradients against central differences."""
    def fn(a):
        x = a * 2
        c0, c1, c2 = x.unbind(0)
        c1.relu_()
        c2.exp_()
        return (x * mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=a.dtype)).sum() + c0.sum() * c2.sum()

    assert mg.autograd.gradcheck(fn, (mg.tensor(A, dtype="float64", requires_grad=True),))


def test_what_pytorch_refuses_is_refused():
    a = mg.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype="float64", requires_grad=True)
    x = a.sigmoid()  # Sigmoid saved its output: the write through a view changes it
    x[0] += 1
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        x.sum().backward()
    x = a * 1
    v = x[:, 0]
    v.mul_(v)  # the operand is the memory being written
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        x.sum().backward()
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        a[0].mul_(2)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        a.t()[1] = 3.0
    assert a.tolist() == [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]  # refused before writing
    with mg.no_grad():  # an optimizer's write, as before
        a[0].mul_(2)
    e = (a[:1] * 1).expand(3, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        e.add_(1.0)
    empty = mg.zeros(2, 0, 3, requires_grad=True) * 1  # (NumPy's empty arrays have zero strides)
    empty[0] = mg.tensor(1.0, requires_grad=True)
    (mg.zeros(0, 3, requires_grad=True) * 1).tril_()


def test_a_row_and_a_column_written_in_turn():
    # torch: x = a * 1; col = x[:, 1]; col.add_(a[0, :2]); row = x[1]; row[::2] *= 3; (x ** 2).sum()
    a = mg.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype="float64", requires_grad=True)
    x = a * 1
    col = x[:, 1]
    col.add_(a[0, :2])
    row = x[1]
    row[::2] *= 3
    assert x.tolist() == [[0.5, -0.5, 2.0], [4.5, -0.75, -2.25]]
    assert col.tolist() == [-0.5, -0.75] and row.tolist() == [4.5, -0.75, -2.25]
    (x ** 2).sum().backward()
    assert a.grad.tolist() == [[0.0, -2.5, 4.0], [27.0, -1.5, -13.5]]


def test_a_buffer_takes_history_from_a_write_through_its_view():
    # torch: buf = zeros(2, 3); buf[:, 1:].copy_(a[:, :2] * a[:, 1:]); (buf * [[1, 2, 3], [4, 5, 6]]).sum()
    a = mg.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype="float64", requires_grad=True)
    buf = mg.zeros(2, 3, dtype="float64")
    v = buf[:, 1:]
    v.copy_(a[:, :2] * a[:, 1:])
    assert buf.requires_grad and buf.grad_fn is not None
    (buf * mg.tensor([[1.0, 2, 3], [4, 5, 6]], dtype="float64")).sum().backward()
    assert a.grad.tolist() == [[-2.0, 7.0, -3.0], [1.25, 3.0, 1.5]]


def test_aliases_outside_the_tape_see_recorded_writes():
    """``from_numpy``'s array, ``.data`` and ``detach()`` share memory: a recorded write shows
    through each (it was a new array that none of them saw), and an alias keeps its own history."""
    w = mg.tensor([1.0, 2.0, 3.0], dtype="float64", requires_grad=True)
    array = np.zeros(3)
    t = mg.from_numpy(array)
    t[0] = w[0] * 2
    assert array.tolist() == [2.0, 0.0, 0.0]
    t.sum().backward()
    assert w.grad.tolist() == [2.0, 0.0, 0.0]
    x = w * 1
    x.data[1] = w[1] * 5  # .data's alias: no history of x's own changes, the values do
    assert x.tolist() == [1.0, 10.0, 3.0]
    h = w * 1
    d = h.detach()
    h.relu_()
    h[2] = -w[2]
    assert d.tolist() == [1.0, 2.0, -3.0] and d.grad_fn is None and not d.requires_grad
    array = np.ones(2)
    mg.as_tensor(array).mul_(w[:2])
    assert array.tolist() == [1.0, 2.0]
    h = w * 1
    with mg.no_grad():
        seen = h[1:]  # made in no_grad mode: it sees the values and stays a constant
    h.mul_(w)
    assert seen.tolist() == [4.0, 9.0] and not seen.requires_grad


def test_one_element_of_a_vector_is_a_view():
    """NumPy's ``x[0]`` of a vector is a scalar copy; PyTorch's is a view, and so is the engine's."""
    w = mg.tensor([1.0, -2.0], requires_grad=True)
    h = w * 1.0
    v = h[0]
    h += 1.0
    assert v.item() == 2.0
    v.mul_(3.0)
    assert h.tolist() == [6.0, -1.0]
    with mg.no_grad():
        base = mg.tensor([1.0, 2.0])
        base[1].fill_(5.0)
    assert base.tolist() == [1.0, 5.0]


def test_forward_mode_through_recorded_view_writes():
    """Forward over reverse: the tangents of the histories the write gives the views."""
    def fn(a):
        x = a * a
        x[:, 1:].mul_(a[:, :1])
        return (x.sin() * x[0]).sum()

    a = mg.tensor(A, dtype="float64")
    d = mg.tensor(np.linspace(-1, 1, 12).reshape(3, 4))
    _, hvp = mg.func.jvp(mg.func.grad(fn), (a,), (d,))
    eps = 1e-6
    up, down = mg.func.grad(fn)(a + eps * d), mg.func.grad(fn)(a - eps * d)
    np.testing.assert_allclose(hvp.numpy(), (up.numpy() - down.numpy()) / (2 * eps), rtol=1e-6, atol=1e-6)


def test_writes_through_the_parts_of_complex_tensors():
    """``.real``, ``.imag`` and ``view_as_real`` are float views of complex memory: a write through
    one reaches the complex tensor part by part, and the other way round (torch 2.13's values)."""
    c = mg.tensor([1 + 2j, 3 - 1j], dtype="complex128", requires_grad=True)
    z = c * 1
    z.real.mul_(2)
    assert z.tolist() == [2 + 2j, 6 - 1j]
    (z.abs() ** 2).sum().backward()
    np.testing.assert_allclose(c.grad.numpy(), [8 + 4j, 24 - 2j], rtol=1e-15)
    c.grad = None
    z = c * 1
    im = z.imag
    z.mul_(1j)
    assert im.tolist() == [1.0, 3.0]
    (im * mg.tensor([1.0, 10.0], dtype="float64")).sum().backward()
    assert c.grad.tolist() == [1.0, 10.0]
    c.grad = None
    z = c * 1
    v = mg.view_as_real(z)
    v[:, 1].zero_()
    z[1] *= 2j
    assert z.tolist() == [1 + 0j, 6j] and v.tolist() == [[1.0, 0.0], [0.0, 6.0]]
    (z * mg.tensor([1 + 1j, 2 - 1j])).real.sum().backward()
    assert c.grad.tolist() == [1.0, 2.0]
    s = mg.tensor([1 + 2j, 3 - 1j], dtype="complex64", device="strict", requires_grad=True)
    z = s * 1
    z.real.mul_(2)  # on the strict stand-in device: no hidden host read
    (z * z.conj()).real.sum().backward()
    assert s.grad.dtype == mg.complex64 and s.grad.to("cpu").tolist() == [8 + 4j, 24 - 2j]


# Which functions give views (a write into the result is a write into the input), as PyTorch's:
# the number of the input's elements a fill_ of the result reaches, from torch 2.13 (the same
# lambdas on torch.arange(n, dtype=float64).reshape(shape), transposed (0, 1) where "strided").
VIEWS_AS_TORCH = {
    ("diagonal", (3, 4), "strided"): (lambda x: x.diagonal(), 3),
    ("diagonal", (2, 3, 4), "strided"): (lambda x: x.diagonal(), 8),
    ("diagonal of dims 0 and 2", (2, 3, 4), "contiguous"): (lambda x: x.diagonal(0, 0, 2), 6),
    ("diagonal offset 1", (3, 4), "strided"): (lambda x: x.diagonal(1), 2),
    ("flatten", (3, 4), "contiguous"): (lambda x: x.flatten(), 12),
    ("flatten", (2, 3, 4), "contiguous"): (lambda x: x.flatten(), 24),
    ("flatten", (3, 4), "strided"): (lambda x: x.flatten(), 0),  # a copy where no view exists
    ("diag of a matrix", (3, 4), "contiguous"): (lambda x: x.diag(), 0),  # torch.diag copies
    ("unfold", (3, 4), "contiguous"): (lambda x: x.unfold(1, 2, 1), 12),
    ("unfold", (2, 3, 4), "strided"): (lambda x: x.unfold(1, 2, 1), 24),
}


@pytest.mark.parametrize("case", sorted(VIEWS_AS_TORCH), ids=str)
def test_views_and_copies_as_pytorch(case):
    _, shape, layout = case
    fn, reached = VIEWS_AS_TORCH[case]
    x = mg.arange(float(np.prod(shape)), dtype="float64").reshape(shape)
    if layout == "strided":
        x = x.transpose(0, 1)
    with mg.no_grad():
        fn(x).fill_(-7.0)
    assert int((x == -7.0).sum().item()) == reached


def test_a_recorded_write_into_the_diagonal_of_a_transposed_matrix():
    def fn(a):
        x = a * 1
        x.t().diagonal(1).mul_(a[0, 0])
        return (x ** 2).sum()

    a = mg.tensor(A, dtype="float64", requires_grad=True)
    assert mg.autograd.gradcheck(fn, (a,))
    x = a.detach() * 1
    with mg.no_grad():
        x.t().diagonal(1).mul_(10.0)
    np.testing.assert_array_equal(np.nonzero(x.numpy() != a.detach().numpy()), ([1, 2], [0, 1]))


def test_a_recorded_write_into_windows_of_unfold():
    def fn(a):
        x = a * 1
        x.unfold(1, 2, 2).mul_(a[:, :2].unsqueeze(-1))  # windows that do not overlap
        return (x ** 2).sum()

    assert mg.autograd.gradcheck(fn, (mg.tensor(A, dtype="float64", requires_grad=True),))
    x = mg.tensor(A, dtype="float64", requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x.unfold(1, 2, 1).add_(1.0)  # overlapping windows: PyTorch refuses too
