"""PyTorch's in-place view changes: ``x.unsqueeze_(0)``, ``squeeze_``, ``t_``, ``transpose_``,
``swapaxes_``, ``swapdims_`` -- ``x`` becomes its own view, on the tape and off it.

Fixtures made offline with torch 2.13 (the same programs with ``torch`` for ``mg``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)


def test_the_image_idiom_of_inference_scripts():
    img = mg.ones(3, 4, 5)
    assert img.unsqueeze_(0) is img and img.shape == (1, 3, 4, 5)
    assert img.squeeze_().shape == (3, 4, 5)
    assert img.transpose_(0, 2).shape == (5, 4, 3) and img.swapaxes_(0, 1).shape == (4, 5, 3)
    assert img.swapdims_(0, 1).shape == (5, 4, 3)
    m = mg.arange(6.0).reshape(2, 3)
    assert m.t_().tolist() == [[0, 3], [1, 4], [2, 5]]


def test_the_memory_stays_shared_with_other_views():
    # torch: a = torch.arange(6.).reshape(2, 3); b = a.view(6); a.t_(); a[0, 1] = 100; b -> [0, 1, 2, 100, 4, 5]
    a = mg.arange(6.0).reshape(2, 3)
    b = a.view(6)
    a.t_()
    a[0, 1] = 100
    assert b.tolist() == [0, 1, 2, 100, 4, 5]


def test_gradients_flow_through_the_recorded_view():
    # torch: x = torch.ones(2, 3, requires_grad=True); y = x * 2; y.unsqueeze_(0); y.t_() is refused for 3-D,
    # so: y.transpose_(1, 2); (y * torch.arange(2.)).sum().backward(); x.grad -> [[0, 0, 0], [2, 2, 2]]
    x = mg.ones(2, 3, requires_grad=True)
    y = x * 2
    y.unsqueeze_(0)
    y.transpose_(1, 2)
    assert y.shape == (1, 3, 2) and y.grad_fn is not None
    (y * mg.arange(2.0)).sum().backward()
    assert x.grad.tolist() == [[0, 0, 0], [2, 2, 2]]


def test_a_leaf_that_requires_grad_refuses_as_pytorchs_and_no_grad_allows_it():
    w = mg.ones(2, 3, requires_grad=True)
    for call in (lambda: w.unsqueeze_(0), lambda: w.t_(), lambda: w.squeeze_()):
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            call()
    with mg.no_grad():
        w.unsqueeze_(0)
    assert w.shape == (1, 2, 3) and w.is_leaf and w.requires_grad


VIEW_CHANGES = [lambda v: v.unsqueeze_(0), lambda v: v.t_(), lambda v: v.squeeze_(),
                lambda v: v.transpose_(0, -1), lambda v: v.swapaxes_(0, -1), lambda v: v.swapdims_(0, -1)]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("change", VIEW_CHANGES)
def test_a_view_of_a_leaf_that_requires_grad_refuses_as_pytorchs(device, dtype, change):
    # torch 2.13: w = torch.ones(2, 3, requires_grad=True); w[0].t_(), w.t()[0].unsqueeze_(0),
    # nn.Parameter(...)[0].swapaxes_(0, -1): "a view of a leaf Variable that requires grad is being used in
    # an in-place operation."; a view made under no_grad: "A view was created in no_grad mode ...";
    # under no_grad, of a detached alias, or of a non-leaf: allowed
    w = mg.ones(2, 3, device=device, dtype=dtype, requires_grad=True)
    for view in (w[0], w.t()[0], w.t()[1:][0], mg.nn.Parameter(mg.ones(2, 3, dtype=dtype))[0]):
        shape = view.shape
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            change(view)
        assert view.shape == shape
    with mg.no_grad():
        made_without_grad = w[0]
    with pytest.raises(RuntimeError, match="view was created in no_grad mode"):
        change(made_without_grad)
    with mg.no_grad():
        assert change(w[0]).shape in {(1, 3), (3,)}
    assert change(w.detach()[0]).shape in {(1, 3), (3,)}
    y = (w * 2)[0]
    change(y)
    y.sum().backward()
    assert w.grad.tolist() == [[2, 2, 2], [0, 0, 0]]


def test_forward_mode_and_reverse_transforms_follow():
    x = mg.tensor([[1.0, 2.0, 3.0]])

    def f(x):
        y = x * x
        y.squeeze_(0)
        return y * mg.tensor([1.0, 10.0, 100.0])

    out, tangent = mg.func.jvp(f, (x,), (mg.ones(1, 3),))
    assert out.shape == (3,) and tangent.tolist() == [2.0, 40.0, 600.0]
    g = mg.func.grad(lambda x: f(x).sum())(x)
    assert g.tolist() == [[2.0, 40.0, 600.0]]


def test_checkpointed_in_place_views_match_the_plain_step_bitwise():
    def block(x):
        y = mg.tanh(x) * 3
        y.t_()
        return mg.sin(y) @ mg.ones(2, 2, dtype=mg.float64)

    grads = []
    for wrap in (False, True):
        x = mg.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
        out = mg.checkpoint.checkpoint(block, x) if wrap else block(x)
        out.sum().backward()
        grads.append(x.grad.numpy().copy())
    assert np.array_equal(*grads)


def test_on_the_strict_device():
    x = mg.ones(2, 3, device="strict", requires_grad=True)
    y = x * 2
    y.t_()
    y.sum().backward()
    assert y.shape == (3, 2) and x.grad.numpy().tolist() == [[2, 2, 2], [2, 2, 2]]


def test_fill_diagonal_as_pytorchs():
    # torch 2.13: torch.zeros(5, 3).fill_diagonal_(2, wrap=True).nonzero() -> [[0,0],[1,1],[2,2],[4,0]];
    # without wrap [[0,0],[1,1],[2,2]]; torch.zeros(2, 2, 2).fill_diagonal_(1).nonzero() -> [[0,0,0],[1,1,1]];
    # on the tape: y = w * 1; y.fill_diagonal_(0.); y.sum().backward(); w.grad -> 1 - eye(3)
    assert mg.zeros(5, 3).fill_diagonal_(2, wrap=True).nonzero().tolist() == [[0, 0], [1, 1], [2, 2], [4, 0]]
    assert mg.zeros(5, 3).fill_diagonal_(2).nonzero().tolist() == [[0, 0], [1, 1], [2, 2]]
    assert mg.zeros(3, 5).fill_diagonal_(2, wrap=True).nonzero().tolist() == [[0, 0], [1, 1], [2, 2]]
    assert mg.zeros(2, 2, 2).fill_diagonal_(1).nonzero().tolist() == [[0, 0, 0], [1, 1, 1]]
    w = mg.ones(3, 3, requires_grad=True)
    y = w * 1
    assert y.fill_diagonal_(0.0) is y
    y.sum().backward()
    assert w.grad.tolist() == (1 - np.eye(3)).tolist()
    with pytest.raises(RuntimeError, match="equal length"):
        mg.zeros(2, 3, 3).fill_diagonal_(1)


@pytest.mark.parametrize("mode", [mg.no_grad, mg.inference_mode])
@pytest.mark.parametrize("change", VIEW_CHANGES)
def test_an_unrecorded_view_change_of_a_tensor_with_history_is_refused(mode, change):
    """Under no_grad nothing records the change, so the tensor's history would differentiate the old
    layout.  The engine dropped the history: the tensor became a leaf that requires grad and the
    gradient of what it was made from silently stopped there (``s.grad`` stayed None).  PyTorch keeps
    the history: a gradient of the wrong shape is its error at backward, and a square ``t_()`` sends the
    untransposed gradient on (torch 2.13: ``s.grad`` [[2, 4], [6, 8]] where the recorded ``t()`` gives
    [[2, 6], [4, 8]]).  Refused here, before anything is lost or wrong; the tensor is left as it was."""
    s = mg.ones(2, 1, requires_grad=True)
    a = s * 2
    with mode(), pytest.raises(RuntimeError, match="in-place view change of a tensor with history under no_grad"):
        change(a)
    assert a.shape == (2, 1) and a.grad_fn is not None
    (a * mg.tensor([[3.0], [5.0]])).sum().backward()
    assert s.grad.tolist() == [[6.0], [10.0]]
    with mode():  # its detached alias, or a tensor without history, changes as before
        change(a.detach())
        change(mg.ones(2, 1))
