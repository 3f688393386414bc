"""In-place changes the tape records: ``out += identity``, ``x.relu_()``, ``nn.ReLU(inplace=True)``.

PyTorch rebases a tensor's history when an op changes it in place; here the tensor takes the
result of the same op computed out of place -- value and history -- so every holder of the
tensor sees ``x = x + y``.  Its old memory is left as it was: nodes that saved the old value
still read it.  Each program below must give the gradients of its out-of-place spelling, bit for
bit, in reverse mode, under transforms, second derivatives, checkpointing and on the strict
device; PyTorch's refusals (a leaf that requires grad) and the engine's own (a tensor another
one aliases: the other would not see the change) are errors, never a silent wrong answer.
"""

from __future__ import annotations

import numpy as np
import pytest
from tape_snapshots import gradients_before_and_after_restore

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F

RNG = np.random.default_rng(7)
A = RNG.standard_normal((2, 4, 6, 6))
W1, W2 = RNG.standard_normal((4, 4, 3, 3)) * 0.2, RNG.standard_normal((4, 4, 3, 3)) * 0.2


def basic_block(x, w1, w2, in_place: bool):
    """torchvision's ResNet BasicBlock (without batch norm), in place or out of place."""
    identity = x
    out = F.conv2d(x, w1, padding=1)
    out = F.relu(out, inplace=in_place)
    out = F.conv2d(out, w2, padding=1)
    if in_place:
        out += identity
    else:
        out = out + identity
    return F.relu(out, inplace=in_place)


def _grads(program, device="cpu", dtype="float64", **kw):
    x = mg.tensor(A, dtype=dtype, device=device, requires_grad=True)
    w1 = mg.tensor(W1, dtype=dtype, device=device, requires_grad=True)
    w2 = mg.tensor(W2, dtype=dtype, device=device, requires_grad=True)
    y = program(x * 1.0, w1, w2, **kw)
    (y * y).sum().backward()
    return [t.grad.numpy() for t in (x, w1, w2)]


@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"),
                                           ("strict-f32", "float32")])
def test_a_residual_block_written_in_place_has_the_out_of_place_gradients(device, dtype):
    for got, want in zip(_grads(basic_block, device, dtype, in_place=True),
                         _grads(basic_block, device, dtype, in_place=False)):
        np.testing.assert_array_equal(got, want)


def test_a_checkpointed_block_written_in_place_replays_bitwise():
    def checkpointed(x, w1, w2, in_place):
        def block(h):
            if in_place:
                h *= 1.5  # the segment's own input, changed in place
            else:
                h = h * 1.5
            return F.dropout(basic_block(h, w1, w2, in_place), 0.3, True)
        return ck.checkpoint(block, x)

    mg.manual_seed(0)
    plain = _grads(checkpointed, in_place=False)
    mg.manual_seed(0)
    got = _grads(checkpointed, in_place=True)
    for g, p in zip(got, plain):
        np.testing.assert_array_equal(g, p)


def _arith(x, y, in_place):
    h = x * 1.0
    if in_place:
        h += y
        h *= y.tanh()
        h -= 0.5 * x
        h /= y * y + 1
        h.add_(y, alpha=2.0).mul_(1.5).sub_(x).div_(3.0)
        h.sigmoid_().clamp_(0.1, 0.9)
        h.masked_fill_(y > 1.0, 0.0)
        return h
    h = (x * 1.0 + y) * y.tanh() - 0.5 * x
    h = h / (y * y + 1)
    h = ((h + 2.0 * y) * 1.5 - x) / 3.0
    h = h.sigmoid().clamp(0.1, 0.9)
    return h.masked_fill(y > 1.0, 0.0)


def test_in_place_arithmetic_and_method_twins_are_recorded():
    a, b = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5))
    grads = []
    for in_place in (True, False):
        x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
        out = _arith(x, y, in_place)
        out.backward(mg.tensor(np.linspace(-1, 1, 15).reshape(3, 5)))
        grads.append((out.numpy(), x.grad.numpy(), y.grad.numpy()))
    for got, want in zip(*grads):
        np.testing.assert_array_equal(got, want)


def test_transforms_and_second_derivatives_see_the_recorded_change():
    a, b = RNG.standard_normal(4), RNG.standard_normal(4)
    y = mg.tensor(b)

    def f(x, in_place):
        return (_arith(x, y, in_place) ** 2).sum()

    x = mg.tensor(a)
    np.testing.assert_array_equal(mg.func.grad(lambda t: f(t, True))(x).numpy(),
                                  mg.func.grad(lambda t: f(t, False))(x).numpy())
    np.testing.assert_array_equal(mg.func.hessian(lambda t: f(t, True))(x).numpy(),
                                  mg.func.hessian(lambda t: f(t, False))(x).numpy())
    t = mg.tensor(np.ones(4))
    np.testing.assert_array_equal(mg.func.jvp(lambda u: f(u, True), (x,), (t,))[1].numpy(),
                                  mg.func.jvp(lambda u: f(u, False), (x,), (t,))[1].numpy())
    xs = [mg.tensor(a, requires_grad=True) for _ in range(2)]
    hv = []
    for x_, in_place in zip(xs, (True, False)):
        (g,) = mg.grad(f(x_, in_place), [x_], create_graph=True)
        (h,) = mg.grad((g * t).sum(), [x_])
        hv.append(h.numpy())
    np.testing.assert_array_equal(*hv)
    fwd = []  # forward mode over values on the tape: the recorded write carries its tangent
    for in_place in (True, False):
        x_ = mg.tensor(a, requires_grad=True)
        _, tan = mg.func.jvp(lambda u, p=in_place: f(u, p), (x_,), (t,))
        (g,) = mg.grad(tan, [x_])  # reverse over forward
        fwd.append((tan.numpy(), g.numpy()))
    for got, want in zip(*fwd):
        np.testing.assert_array_equal(got, want)


def test_the_tensor_takes_the_result_and_keeps_its_dtype():
    x = mg.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    h = x * 2.0
    y = mg.tensor(np.arange(3.0), requires_grad=True)  # float64: the result is cast back, as PyTorch's
    h += y
    assert h.dtype == np.float32 and h.requires_grad and h.grad_fn is not None
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 1.0, 1.0])
    before = h.version()
    h.mul_(3.0)
    assert h.version() > before


def test_values_saved_before_the_change_still_give_the_right_gradient():
    # PyTorch raises "modified by an inplace operation" here; the engine left the old memory as
    # it was, so the product's saved h is intact and its gradient is the true one
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0], requires_grad=True)
    h = x * 1.0
    y = h * w
    h += 10.0
    (y.sum() + h.sum()).backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 5.0])


def test_refusals():
    w = mg.tensor([1.0, -2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w += 1.0
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.relu_()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        nn.ReLU(inplace=True)(w)
    h = w * 1.0
    v = h[0]
    h += 1.0  # into the memory, as PyTorch's: the view shows it, and its history follows
    assert v.item() == 2.0
    v.mul_(2.0)  # through the view: the base shows it
    assert h.tolist() == [4.0, -1.0]
    ((h * mg.tensor([1.0, 10.0])).sum() + v).backward()  # h = [2 (w0 + 1), w1 + 1], v = h[0]
    assert w.grad.tolist() == [4.0, 10.0]
    w.grad = None
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        w[0].mul_(2.0)
    g = w * 1.0
    d = g.detach()
    g.relu_()  # a detached alias shows the values (not the history), as in PyTorch
    assert d.tolist() == [1.0, 0.0] and d.grad_fn is None
    del v, d  # once no other tensor holds the memory, the change is a new array
    h = w * 1.0
    h += 1.0
    assert h.tolist() == [2.0, -1.0] and g.tolist() == [1.0, 0.0]
    r = w * 1.0
    r[r > 0] = r[r > 0] * 3  # the read's temporary is gone when the write comes
    r[1] = r[1] + 1
    (r * r).sum().backward()
    assert w.grad.tolist() == [18.0, -2.0]
    k = w * 1.0
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        k += mg.ones(3, 2)
    with mg.no_grad():  # a plain write, as before
        w += 1.0
    assert w.tolist() == [2.0, -1.0] and w.grad_fn is None


def _writes(x, w, in_place):
    """A sequence model's output buffer filled step by step (``outputs[t] = h``, a constant taking
    history), a masked and a sliced write, copy_ and fill_ of a tensor that requires grad."""
    if in_place:
        out = mg.zeros(4, 3, dtype="float64")
        for t in range(4):
            out[t] = (x[t] * w).tanh()
        out[1:3, 0] = x[0, 0] * 2
        z = x * 1.0
        z[z > 0.5] = 0.0
        m = x * 1.0
        m.copy_(w * 3)  # broadcast over the rows
        f = x * 2.0
        f.fill_(1.5)
        return out, z, m, f
    rows = mg.stack([(x[t] * w).tanh() for t in range(4)])
    col = mg.where(mg.tensor([False, True, True, False])[:, None] & mg.tensor([True, False, False])[None],
                   x[0, 0] * 2, rows)
    z = mg.where(x > 0.5, 0.0, x * 1.0)
    m = (w * 3).expand(4, 3) * 1.0
    f = mg.where(mg.tensor(False), x * 2.0, mg.full((4, 3), 1.5, dtype="float64"))
    return col, z, m, f


def test_writes_into_a_tensor_take_the_values_history():
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    results = []
    for in_place in (True, False):
        x, w = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
        outs = _writes(x, w, in_place)
        sum(((o * o) * (k + 1)).sum() for k, o in enumerate(outs)).backward()
        results.append([o.numpy() for o in outs] + [x.grad.numpy(), w.grad.numpy()])
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    f = mg.tensor(a, requires_grad=True) * 1.0
    f.zero_()
    assert f.requires_grad and f.grad_fn is not None  # PyTorch's: still on the tape, gradient 0


def test_retain_grad_keeps_a_non_leaf_gradient_as_pytorch():
    """torch 2.13: y = x * 3 at x = [1, 2]; y.retain_grad(); z = (y * y).sum(): autograd.grad gives
    y.grad [6, 12], each backward adds [6, 12]; after y2 = x * 2; y2 += 1 the retained gradient is
    the new value's, [6, 10]; a tensor that does not require grad refuses."""
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    z = (y * y).sum()
    mg.grad(z, [x], retain_graph=True)
    assert y.grad.tolist() == [6.0, 12.0] and y.retains_grad and not x.retains_grad
    z.backward(retain_graph=True)
    z.backward()
    assert y.grad.tolist() == [18.0, 36.0]
    x.retain_grad()  # a leaf: nothing to do
    y2 = x * 2
    y2.retain_grad()
    y2 += 1
    (y2 * y2).sum().backward()
    assert y2.grad.tolist() == [6.0, 10.0]
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        mg.tensor([1.0]).retain_grad()


class _Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w1 = nn.Parameter(mg.tensor(W1))
        self.w2 = nn.Parameter(mg.tensor(W2))

    def forward(self, x):
        return basic_block(x * 1.0, self.w1, self.w2, in_place=True)


def test_a_recorded_tape_with_in_place_changes_snapshots_and_restores_bitwise(tmp_path):
    """The nodes of recorded in-place changes are ordinary ops on the tape: a snapshot with the
    tape restores into a fresh executor and gives bitwise the same gradients."""
    def setup():
        model = _Block()
        return model, mg.Executor(model, mg.optim.SGD(model.parameters(), lr=0.1))

    before, after = gradients_before_and_after_restore(setup, lambda m: (m(mg.tensor(A)) ** 2).mean(),
                                                       tmp_path / "t.mgsnap")
    assert after == before
