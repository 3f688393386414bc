"""A value a saved-tensor pack hook copied is what backward reads: a later in-place write of the tensor
it was saved from changes nothing of it, and torch 2.13 differentiates with the saved values (no
version error).  A hook that keeps the memory itself (an identity, a view) still meets the version
check here -- torch 2.13 then silently answers with the new values."""

import numpy as np
import pytest

import minigrad_ckpt as mg


def _cloning():
    return mg.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t)


def test_a_write_through_a_view_after_a_cloning_pack_hook():
    with _cloning():
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        v = b[:]
        c = (b * b).sum()
        v.mul_(2)
    c.backward()
    assert a.grad.tolist() == [2.0, 4.0]  # torch 2.13: tensor([2., 4.])


def test_a_leaf_written_under_no_grad_after_a_cloning_pack_hook():
    with _cloning():
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        c = (a * a).sum()
    with mg.no_grad():
        a.mul_(2)
    c.backward()
    assert a.grad.tolist() == [2.0, 4.0]  # torch 2.13: tensor([2., 4.])


def test_a_saved_output_written_after_a_cloning_pack_hook():
    with _cloning():
        w = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
        t = (w * 1).exp()  # exp saves its output
        t.add_(1)
    t.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), np.exp([1.0, 2.0]), rtol=1e-15)  # torch: [2.7183, 7.3891]


def test_a_pack_hook_that_copies_to_numpy():
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.numpy().copy(), lambda t: mg.from_numpy(t)):
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        c = (b * b).sum()
        b[:].mul_(2)
    c.backward()
    assert a.grad.tolist() == [2.0, 4.0]  # torch 2.13: tensor([2., 4.])


@pytest.mark.parametrize("pack", [lambda t: t, lambda t: t.view(-1), lambda t: (t, "kept")])
def test_a_pack_hook_that_keeps_the_memory_still_meets_the_version_check(pack):
    # torch 2.13 answers tensor([4., 8.]) (the written values); the engine keeps its error
    with mg.autograd.graph.saved_tensors_hooks(pack, lambda p: p[0] if isinstance(p, tuple) else p):
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        c = (b * b).sum()
        b[:].mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.backward()


def test_only_the_copied_input_is_let_go():
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.clone() if t.shape == (2,) else t, lambda t: t):
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        w = mg.tensor([[3.0], [4.0]], requires_grad=True)
        b = a * 1
        c = (b * w).sum()
        b[:].mul_(2)
    c.backward()
    assert a.grad.tolist() == [7.0, 7.0] and w.grad.tolist() == [[3.0], [3.0]]  # torch 2.13's
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.clone() if t.shape == (2,) else t, lambda t: t):
        a = mg.tensor([1.0, 2.0], requires_grad=True)
        w = mg.tensor([[3.0], [4.0]], requires_grad=True)
        c = (a * w).sum()
    with mg.no_grad():
        w.mul_(2)  # w's own memory was kept: still checked
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        c.backward()
