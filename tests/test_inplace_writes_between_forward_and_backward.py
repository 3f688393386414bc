"""A write into a layer's parameter (or input) between forward and backward is refused exactly when
backward reads what was written, as PyTorch refuses it where its op saved the tensor.

Two seams the engine had wrong: a transposed convolution saved *copies* (the spread input, the
flipped kernel), so an optimizer step before the generator's backward went unnoticed where PyTorch
refuses; and an op whose inputs all need gradients watched every input, so a bias -- which no
gradient reads -- could not be changed between forward and backward (``Linear``, attention's and
GRU's biases), where PyTorch allows it."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn

MODIFIED = "modified by an inplace operation"


def _loss_and_grads(make, shape, write=None, watch_input=False, **forward):
    mg.manual_seed(0)
    m = make()
    x = mg.randn(*shape, requires_grad=True)
    y = m(x, x, x)[0] if isinstance(m, nn.MultiheadAttention) else m(x)
    y = y[0] if isinstance(y, tuple) else y
    loss = (y * y).sum()
    if write is not None:
        with mg.no_grad():
            (x if write == "input" else dict(m.named_parameters())[write]).mul_(1.5)
    loss.backward()
    return x.grad.numpy().copy(), {k: p.grad.numpy().copy() for k, p in m.named_parameters()}


@pytest.mark.parametrize("make, shape, bias", [
    (lambda: nn.Linear(4, 3), (2, 4), "bias"),
    (lambda: nn.Conv2d(2, 3, 3), (1, 2, 5, 5), "bias"),
    (lambda: nn.MultiheadAttention(4, 2), (3, 2, 4), "in_proj_bias"),
    (lambda: nn.MultiheadAttention(4, 2), (3, 2, 4), "out_proj.bias"),
    (lambda: nn.GRU(4, 3), (5, 2, 4), "bias_ih_l0"),
    (lambda: nn.RNN(4, 3), (5, 2, 4), "bias_hh_l0"),
])
def test_a_bias_written_after_forward_is_allowed_and_changes_no_gradient(make, shape, bias):
    """No gradient reads a bias (PyTorch's ops do not save it either): the write is allowed, and the
    gradients are the ones without it."""
    want_x, want = _loss_and_grads(make, shape)
    got_x, got = _loss_and_grads(make, shape, write=bias)
    np.testing.assert_array_equal(got_x, want_x)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


@pytest.mark.parametrize("make, shape", [
    (lambda: nn.ConvTranspose1d(2, 3, 3), (1, 2, 5)),
    (lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, output_padding=1), (1, 2, 4, 4)),
    (lambda: nn.ConvTranspose2d(4, 2, 3, groups=2), (2, 4, 3, 3)),
    (lambda: nn.ConvTranspose3d(2, 3, 2), (1, 2, 3, 3, 3)),
])
@pytest.mark.parametrize("write", ["weight", "input"])
def test_a_transposed_convolution_refuses_a_write_into_what_it_saved(make, shape, write):
    with pytest.raises(RuntimeError, match=MODIFIED):
        _loss_and_grads(make, shape, write=write)
    _loss_and_grads(make, shape, write="bias")  # (the bias, which no gradient reads, may change)


def test_a_generator_stepped_before_its_backward_is_refused_as_in_pytorch():
    """The GAN mistake PyTorch reports: the generator's optimizer steps, then its loss's backward."""
    mg.manual_seed(1)
    g = nn.Sequential(nn.ConvTranspose2d(4, 2, 4, 2, 1), nn.Tanh())
    opt = mg.optim.Adam(g.parameters(), lr=0.1)
    loss = g(mg.randn(2, 4, 3, 3)).pow(2).mean()
    opt.zero_grad()
    (g[0].weight.sum() * 0).backward()  # (some gradient, so that the step writes)
    opt.step()
    with pytest.raises(RuntimeError, match=MODIFIED):
        loss.backward()


def test_a_linear_weight_written_after_forward_is_still_refused():
    with pytest.raises(RuntimeError, match=MODIFIED):
        _loss_and_grads(lambda: nn.Linear(4, 3), (2, 4), write="weight")


def test_a_transposed_convolution_under_checkpoint_refuses_the_write_too():
    mg.manual_seed(2)
    m = nn.ConvTranspose2d(2, 3, 3)
    x = mg.randn(1, 2, 4, 4, requires_grad=True)
    loss = mg.checkpoint.checkpoint(m, x, use_reentrant=False).pow(2).sum()
    with mg.no_grad():
        m.weight.mul_(2)
    with pytest.raises(RuntimeError, match="modified in place"):  # (the replay refuses, in its words)
        loss.backward()


def test_an_lstm_cell_from_zeros_lets_its_recurrent_weight_change_and_a_later_step_does_not():
    """A first step from a zero state needs no gradient of ``h``, so nothing reads ``W_hh`` (PyTorch
    saves nothing and allows the write); a second step's ``h`` needs one, which reads ``W_hh``."""
    want_x, want = _loss_and_grads(lambda: nn.LSTMCell(4, 3), (2, 4))
    got_x, got = _loss_and_grads(lambda: nn.LSTMCell(4, 3), (2, 4), write="weight_hh")
    np.testing.assert_array_equal(got_x, want_x)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)
    mg.manual_seed(0)
    cell = nn.LSTMCell(4, 3)
    x = mg.randn(2, 4, requires_grad=True)
    h, c = cell(x)
    h, c = cell(x, (h, c))
    loss = (h * h).sum()
    with mg.no_grad():
        cell.weight_hh.mul_(1.5)
    with pytest.raises(RuntimeError, match=MODIFIED):
        loss.backward()


@pytest.mark.parametrize("loss_fn, target", [
    (lambda x, t: nn.functional.multi_margin_loss(x, t, reduction="sum"), [1, 0, 3]),
    (lambda x, t: nn.functional.multilabel_margin_loss(x, t, reduction="sum"),
     [[1, 2, -1, 0], [0, -1, 0, 0], [3, 1, 2, -1]]),
])
def test_a_class_target_written_after_forward_leaves_the_gradient_as_it_was(loss_fn, target):
    """The margin losses' backward picks the target classes' entries: the classes read at forward,
    not the target tensor's memory (once a view of it, so a reused target buffer filled with the next
    batch's labels between forward and backward moved the gradient to other classes, silently)."""
    x0 = np.random.default_rng(0).standard_normal((3, 4))

    def grad(write):
        x, t = mg.tensor(x0, requires_grad=True), mg.tensor(target)
        loss = loss_fn(x, t)
        if write:
            t.fill_(0)
        loss.backward()
        return x.grad.numpy()

    np.testing.assert_array_equal(grad(write=True), grad(write=False))


def test_a_tall_matrix_written_after_its_qr_leaves_the_gradient_as_it_was():
    """QR's gradient for a tall or square A is written with Q and R alone (the saved output): a write
    into A after forward changes nothing backward computes, so it is allowed, as in PyTorch. A wide
    A's gradient reads A's right block, and a write into it is refused."""
    a0 = np.random.default_rng(1).standard_normal((4, 3))

    def grads(shape, write):
        a = mg.tensor(a0[:shape[0], :shape[1]], requires_grad=True)
        q, r = mg.linalg.qr(a)
        loss = (q * mg.tensor(np.arange(q.numel()).reshape(q.shape) / 7.0)).sum() + (r * r).sum()
        if write:
            with mg.no_grad():
                a.mul_(-2.0)
        loss.backward()
        return a.grad.numpy()

    for shape in [(4, 3), (3, 3)]:
        np.testing.assert_array_equal(grads(shape, write=True), grads(shape, write=False))
    with pytest.raises(RuntimeError, match=MODIFIED):
        grads((2, 3), write=True)


def _write_after_forward(f, inputs, write, needs_grad):
    """``f(*inputs)`` summed against fixed weights, ``inputs[write]`` changed in place under no_grad, then
    backward: the gradients of the inputs that need one."""
    ts = [mg.tensor(a, requires_grad=i in needs_grad) for i, a in enumerate(inputs)]
    y = f(*ts)
    loss = (y * mg.tensor(np.linspace(-1, 2, y.numel()).reshape(y.shape))).sum()
    if write is not None:
        with mg.no_grad():
            ts[write].mul_(-1.5)
    loss.backward()
    return [ts[i].grad.numpy().copy() for i in needs_grad]


_rng = np.random.default_rng(3)
_WATCHED = {  # a composite whose recorded ops save copies (differences, rows taken, tap weights)
    "cdist": (lambda a, b: mg.cdist(a, b), [_rng.standard_normal((3, 4)), _rng.standard_normal((5, 4))]),
    "pdist": (lambda a: nn.functional.pdist(a), [_rng.standard_normal((4, 3))]),
    "dist": (lambda a, b: mg.dist(a, b), [_rng.standard_normal((3, 4)), _rng.standard_normal((3, 4))]),
    "grid_sample": (lambda x, g: nn.functional.grid_sample(x, g, align_corners=False),
                    [_rng.standard_normal((1, 2, 4, 4)), _rng.uniform(-0.9, 0.9, (1, 3, 3, 2))]),
    "embedding_bag": (lambda w, p: nn.functional.embedding_bag(mg.tensor([1, 2, 3, 1, 4]), w, mg.tensor([0, 2]),
                                                                 mode="sum", per_sample_weights=p),
                      [_rng.standard_normal((5, 3)), _rng.standard_normal(5)]),
}


@pytest.mark.parametrize("name", sorted(_WATCHED))
def test_a_composite_refuses_a_write_into_an_input_its_gradients_read_through_a_copy(name):
    """Learned centroids (cdist), a learned feature volume (grid_sample), an embedding table with per-sample
    weights: an optimizer's step before the loss's backward is refused, as PyTorch's one op refuses it --
    the composite's recorded ops saved copies, so the write once went unnoticed."""
    f, inputs = _WATCHED[name]
    everything = tuple(range(len(inputs)))
    for written in everything:
        with pytest.raises(RuntimeError, match=MODIFIED):
            _write_after_forward(f, inputs, written, everything)


@pytest.mark.parametrize("name, written, needs_grad", [
    ("grid_sample", 0, (0,)),  # the input's gradient reads the grid only
    ("embedding_bag", 1, (1,)),  # the weights' gradient reads the table's rows, not the weights
    ("embedding_bag", 0, (0,)),  # the table's gradient reads the weights, not the table
])
def test_a_composite_allows_a_write_no_needed_gradient_reads(name, written, needs_grad):
    f, inputs = _WATCHED[name]
    got = _write_after_forward(f, inputs, written, needs_grad)
    want = _write_after_forward(f, inputs, None, needs_grad)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fn", [mg.logaddexp, mg.logaddexp2])
def test_logaddexps_output_may_change_before_backward(fn):
    """logaddexp's gradients are the operands' softmax weights, 0 where both are -inf: read from the
    operands, not the output (once kept for that -inf test alone), so a write into the output between
    forward and backward is allowed and changes nothing, as in PyTorch."""
    a0 = np.array([0.5, -np.inf, 3.0, -np.inf, 1e20])
    b0 = np.array([-1.0, 2.0, 3.0, -np.inf, 1e20])

    def grads(write):
        a, b = mg.tensor(a0, requires_grad=True), mg.tensor(b0, requires_grad=True)
        y = fn(a, b)
        loss = (y * mg.tensor([1.0, -2.0, 0.5, 1.0, 1.0])).sum()
        if write:
            with mg.no_grad():
                y.fill_(-np.inf)
        loss.backward()
        return a.grad.numpy(), b.grad.numpy()

    for got, want in zip(grads(write=True), grads(write=False)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(grads(write=False)[0][3:], [0.0, 0.5])  # both -inf: 0; the same value: 1/2


def _op_classes(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _op_classes(sub)


def test_every_op_class_knows_what_its_gradients_read_before_its_first_record():
    """``Op.read_by_some_gradient`` is made once per class from ``grad_reads``.  A binary elementwise
    op derives its ``grad_reads`` from ``partials_read`` in its own ``__init_subclass__``, which ran
    after ``Op``'s had read the inherited None: Mul, Div, Pow, Hypot, PRelu, remainder and binary
    cross-entropy rebuilt the union at each record where both inputs need gradients (~0.3 us of
    a 4 us product), and a subclass of one of them would have kept its parent's union."""
    from minigrad_ckpt.ops.base import Op

    stale = {c.__name__ for c in _op_classes(Op) if isinstance(c.grad_reads, tuple)
             and c.read_by_some_gradient != frozenset().union(*c.grad_reads)}
    assert not stale
