"""Random programs of recorded in-place writes through views, against central differences.

A program makes a tensor from the input (``x = a * 1.5 + 0.1``, on the tape),
then runs a drawn sequence of steps: take a view of a live tensor (slices with
steps, an integer select, a transpose, ``view(-1)``, ``unsqueeze``,
``diagonal``, ``narrow``, ``unbind``) or write in place into one (``mul_``,
``add_`` of a value that moves with the input, ``x[0] = v``, ``x[i] *= c``,
``copy_``, ``fill_``, ``zero_``, ``clamp_``, ``tanh_``, ``relu_``).  Every write
goes into the memory the views share, as PyTorch's do, and the tape follows
every live view and base.  The loss reads every tensor still alive.

Checked: the recorded run's values equal the same program run without
recording, bitwise; its gradient equals central differences of the whole
program; forward-over-reverse (``jvp`` of ``mg.func.grad``) equals central
differences of the gradient; a checkpointed run's gradient is bitwise the
plain one's; and the float32-only strict stand-in device agrees.
"""

from __future__ import annotations

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

SHAPE = (3, 4)

VIEWS = {
    "rows": lambda t: t[1:] if t.ndim >= 1 and t.shape[0] > 1 else None,
    "step columns": lambda t: t[:, ::2] if t.ndim == 2 else None,
    "select": lambda t: t[0] if t.ndim >= 1 and t.shape[0] > 0 else None,
    "transpose": lambda t: t.t() if t.ndim == 2 else None,
    "flat": lambda t: t.view(-1) if t.is_contiguous() else None,
    "unsqueeze": lambda t: t.unsqueeze(0) if t.ndim < 3 else None,
    "diagonal": lambda t: t.diagonal() if t.ndim == 2 else None,
    "narrow": lambda t: t.narrow(-1, 1, 2) if t.ndim >= 1 and t.shape[-1] >= 3 else None,
    "unbind": lambda t: t.unbind(0)[-1] if t.ndim >= 1 and t.shape[0] > 0 else None,
}


def _moving(a, t):
    """A value of ``t``'s shape that moves with the input ``a``."""
    n = t.numel()
    return mg.sin(a.reshape(-1)[:n].reshape(t.shape)) if n <= a.numel() else a.mean() + 0 * t.detach()


def _first(t, fn):
    if t.ndim:
        fn(t)


def _imul_last(t, a):
    if t.ndim and t.shape[-1]:
        t[-1] *= a[2, 1]  # Python's t.__setitem__(-1, t[-1].__imul__(...)): a write through a view, then one
        # into t of that view itself


WRITES = {
    "mul_": lambda t, a: t.mul_(-1.5),
    "add_": lambda t, a: t.add_(_moving(a, t), alpha=0.5),
    "setitem": lambda t, a: _first(t, lambda t: t.__setitem__(0, a[1, 2] * 2.0)),
    "imul item": _imul_last,
    "copy_": lambda t, a: t.copy_(_moving(a, t) * 0.7),
    "fill_": lambda t, a: t.fill_(a[0, 3]),
    "zero_": lambda t, a: t.zero_(),
    "clamp_": lambda t, a: t.clamp_(-0.9, 1.1),
    "tanh_": lambda t, a: t.tanh_(),
    "relu_": lambda t, a: t.relu_(),
}

STEPS = st.lists(st.tuples(st.sampled_from(sorted(VIEWS) + sorted(WRITES)), st.integers(0, 20)),
                 min_size=1, max_size=7)


def live_after(steps, x, a, views, writes):
    """The tensors alive at the end of the program that starts from ``x``: ``x`` and the views
    the steps took, after the steps' writes (whose values move with ``a``)."""
    live = [x]
    for kind, pick in steps:
        t = live[pick % len(live)]
        if kind in views:
            v = views[kind](t)
            if v is not None:
                live.append(v)
        elif t.numel():
            writes[kind](t, a)
    return live


def _weights(i, t):
    return mg.arange(t.numel(), dtype=t.real.dtype, device=t.device).reshape(t.shape) * 0.1 + (i + 1) * 0.3


def run(steps, a):
    """The program on ``a``: the loss (a 0-d tensor) reads every tensor still alive."""
    live = live_after(steps, a * 1.5 + 0.1, a, VIEWS, WRITES)
    return sum((t * _weights(i, t)).sum() for i, t in enumerate(live))


def _backward(steps, a, checkpointed=False):
    """The program's loss, its backward run.  A program that writes, through a view, memory whose
    values an op saved (``tanh_`` and ``relu_`` save their result, which becomes the tensor's
    memory) is refused at backward, as PyTorch refuses it: such a draw is discarded."""
    loss = mg.checkpoint.checkpoint(lambda t: run(steps, t), a) if checkpointed else run(steps, a)
    try:
        loss.backward()
    except RuntimeError as e:
        assume("modified by an in-place operation" not in str(e))
        raise
    return loss


def _input(values, dtype="float64", device="cpu", requires_grad=True):
    return mg.tensor(np.array(values).reshape(SHAPE), dtype=dtype, device=device, requires_grad=requires_grad)


def _plain(steps, values):
    with mg.no_grad():
        return run(steps, _input(values, requires_grad=False)).item()


def _central(steps, values, eps=1e-6):
    """Central differences of the program, or None where a ``clamp_`` or ``relu_`` kink lies within
    the step (the one-sided differences then disagree): the gradient is not checked there."""
    g = np.zeros(len(values))
    at = _plain(steps, values)
    for j in range(len(values)):
        up, down = list(values), list(values)
        up[j] += eps
        down[j] -= eps
        hi, lo = _plain(steps, up), _plain(steps, down)
        if abs((hi - at) - (at - lo)) > 1e-3 * eps * max(1.0, abs(hi - lo) / eps):
            return None
        g[j] = (hi - lo) / (2 * eps)
    return g.reshape(SHAPE)


VALUES = st.lists(st.floats(-1.0, 1.0), min_size=12, max_size=12)


@settings(max_examples=150, deadline=None)
@given(STEPS, VALUES)
def test_recorded_writes_through_views_match_central_differences(steps, values):
    a = _input(values)
    loss = _backward(steps, a)
    assert loss.item() == _plain(steps, values)  # the same writes, bitwise, recorded or not
    expected = _central(steps, values)
    assume(expected is not None)
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-5, atol=1e-5)


@settings(max_examples=50, deadline=None)
@given(STEPS, VALUES, st.lists(st.floats(-1.0, 1.0), min_size=12, max_size=12))
def test_forward_over_reverse_through_view_writes(steps, values, direction):
    _backward(steps, _input(values))  # (discards a draw PyTorch refuses)
    grad = mg.func.grad(lambda a: run(steps, a))
    a, d = _input(values, requires_grad=False), _input(direction, requires_grad=False)
    _, hvp = mg.func.jvp(grad, (a,), (d,))
    eps = 1e-5
    up = grad(_input(np.array(values) + eps * np.array(direction), requires_grad=False)).numpy()
    down = grad(_input(np.array(values) - eps * np.array(direction), requires_grad=False)).numpy()
    at = grad(a).numpy()
    assume(np.abs((up - at) - (at - down)).max() < 1e-6)  # no relu_/clamp_ kink within the step
    np.testing.assert_allclose(hvp.numpy(), (up - down) / (2 * eps), rtol=1e-4, atol=1e-4)


@settings(max_examples=50, deadline=None)
@given(STEPS, VALUES)
def test_checkpointed_view_writes_give_bitwise_the_same_gradient(steps, values):
    a = _input(values)
    _backward(steps, a)
    b = _input(values)
    _backward(steps, b, checkpointed=True)
    np.testing.assert_array_equal(b.grad.numpy(), a.grad.numpy())


@settings(max_examples=50, deadline=None)
@given(STEPS, VALUES)
def test_view_writes_on_the_float32_strict_device(steps, values):
    a = _input(values)
    _backward(steps, a)
    s = _input(values, dtype="float32", device="strict-f32")
    _backward(steps, s)
    got = s.grad.to("cpu").numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a.grad.numpy(), rtol=1e-4, atol=1e-4)


# ---- complex memory: writes through complex views and through the float views of their parts
COMPLEX_VIEWS = {
    **{k: VIEWS[k] for k in ("rows", "step columns", "select", "transpose", "narrow")},
    "real": lambda t: t.real if t.dtype.kind == "c" else None,
    "imag": lambda t: t.imag if t.dtype.kind == "c" else None,
    "as real": lambda t: mg.view_as_real(t) if t.dtype.kind == "c" and t.is_contiguous() else None,
}


def _like(value, t):
    """``value`` in ``t``'s kind: its real part for a float ``t`` (a view of complex parts)."""
    return value if t.dtype.kind == "c" else value.real


COMPLEX_WRITES = {
    "mul_": lambda t, a: t.mul_(-1.5 + 0.5j if t.dtype.kind == "c" else -1.5),
    "add_": lambda t, a: t.add_(_like(_moving(a, t) if t.numel() <= a.numel() else a.mean(), t)),
    "setitem": lambda t, a: _first(t, lambda t: t.__setitem__(0, _like(a[1, 2] * 2.0, t))),
    "copy_": lambda t, a: t.copy_(_like(_moving(a, t), t) * 0.7) if t.numel() <= a.numel() else None,
    "fill_": lambda t, a: t.fill_(_like(a[0, 3], t)),
    "zero_": lambda t, a: t.zero_(),
    "tanh_": lambda t, a: t.tanh_(),
}


def run_complex(steps, a):
    """The complex program: a real loss of every live tensor, complex or a view of the parts."""
    live = live_after(steps, a * (1.5 - 0.5j) + 0.1, a, COMPLEX_VIEWS, COMPLEX_WRITES)
    terms = [t * _weights(i, t) for i, t in enumerate(live)]
    return sum(t.real.sum() + 0.7 * t.imag.sum() if t.dtype.kind == "c" else t.sum() for t in terms)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(COMPLEX_VIEWS) + sorted(COMPLEX_WRITES)), st.integers(0, 20)),
                min_size=1, max_size=7),
       st.lists(st.complex_numbers(max_magnitude=1.0), min_size=12, max_size=12))
def test_writes_through_complex_views_and_their_parts(steps, values):
    a = mg.tensor(np.array(values).reshape(SHAPE), dtype="complex128", requires_grad=True)
    loss = run_complex(steps, a)
    try:
        loss.backward()
    except RuntimeError as e:  # (tanh_ saves its result: a later write through a view is refused)
        assume("modified by an in-place operation" not in str(e))
        raise
    with mg.no_grad():
        assert loss.item() == run_complex(steps, mg.tensor(np.array(values).reshape(SHAPE))).item()

    def plain(v):
        with mg.no_grad():
            return run_complex(steps, mg.tensor(v.reshape(SHAPE), dtype="complex128")).item()

    eps, base = 1e-6, np.array(values, dtype=complex)
    expected = np.zeros(12, dtype=complex)
    for j in range(12):
        for part in (1.0, 1j):
            e = np.zeros(12, dtype=complex)
            e[j] = eps * part
            expected[j] += part * (plain(base + e) - plain(base - e)) / (2 * eps)
    np.testing.assert_allclose(a.grad.numpy().reshape(-1), expected, rtol=1e-5, atol=1e-5)
