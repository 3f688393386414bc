"""``grad_fn._saved_result`` (``_saved_self``, ``_saved_other``, a custom Function's ``saved_tensors``) of a
node inside a checkpoint is its value, replayed, as PyTorch's checkpoint recomputes it on such a look
(``test_autograd.py``'s ``test_access_saved_tensor_twice_without_recomputation_works``).

They used to raise "the saved tensors of a node inside a checkpoint segment are recomputed in backward,
not kept".  A look replays the segment and lets go of what the replay made at once (as a backward with
``retain_graph=True`` does): nothing stays held, the backward after it replays and gives the gradients
bit for bit, and after that backward the look is PyTorch's "already been freed" error.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.utils.checkpoint import checkpoint


def _x(device="cpu", dtype=mg.float64):
    values = np.array([0.3, -1.2, 2.0, 0.7, -0.4])
    return mg.tensor(values, dtype=dtype, device=device, requires_grad=True)


def _fn(a):
    b = a * a
    c = a * b  # noqa: F841 -- a branch the function drops, as PyTorch's test has
    return mg.exp(a.sin())


def _bits(t):
    return np.asarray(t.detach().cpu().numpy() if hasattr(t, "cpu") else t.detach().numpy())


@pytest.mark.parametrize("device,dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                          ("strict-f32", mg.float32)])
def test_saved_result_of_a_checkpointed_node_is_its_value_looked_at_twice(device, dtype):
    if device.startswith("strict"):
        import minigrad_ckpt.testing.strict  # noqa: F401 -- registers the device
    x = _x(device, dtype)
    plain = _fn(x)
    (expected,) = mg.autograd.grad(plain.sum(), x)
    d = checkpoint(_fn, x, use_reentrant=False)
    for _ in range(2):  # each look replays; neither changes what backward gives
        assert np.array_equal(_bits(d.grad_fn._saved_result), _bits(d))
        assert np.array_equal(_bits(d.grad_fn.next_functions[0][0]._saved_self), _bits(x))  # sin's input
    d.sum().backward()
    assert np.array_equal(_bits(x.grad), _bits(expected))
    with pytest.raises(RuntimeError, match="already been freed"):
        d.grad_fn._saved_result


def test_a_look_holds_no_memory_and_the_backward_replays_as_before():
    x = _x()
    with mg.memory.track() as ledger:
        d = checkpoint(_fn, x, use_reentrant=False)
        held = ledger.live("saved")
        ck.reset_statistics()
        d.grad_fn._saved_result
        assert ledger.live("saved") == held  # what the replay made is let go at once
        assert ck.statistics().recompute_count == 1
        d.sum().backward()
        assert ck.statistics().recompute_count == 2  # the backward replays for itself
    assert ledger.live("saved") == 0


def test_a_look_inside_nested_segments_and_inside_the_function():
    x = _x()

    def inner(t):
        return t.sin().exp()

    looked = []

    def outer(t):
        h = checkpoint(inner, t.cos(), use_reentrant=False)
        looked.append(_bits(h.grad_fn._saved_result))  # while the outer function still runs
        return (h * t).tanh()

    y = checkpoint(outer, x, use_reentrant=False)
    assert np.array_equal(looked[0], _bits(x.cos().sin().exp()))
    assert np.array_equal(_bits(y.grad_fn._saved_result), _bits(y))
    h_node = y.grad_fn.next_functions[0][0].next_functions[0][0]  # tanh <- mul <- exp (nested)
    assert np.array_equal(_bits(h_node._saved_result), _bits(x.cos().sin().exp()))
    y.sum().backward()
    got = x.grad.clone()
    x.grad = None
    t = x
    (inner(t.cos()) * t).tanh().sum().backward()
    assert np.array_equal(_bits(got), _bits(x.grad))


def test_saved_tensors_of_a_custom_function_inside_a_checkpoint():
    class Scale(mg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            out = a * 3
            ctx.save_for_backward(a, out)
            return out

        @staticmethod
        def backward(ctx, g):
            a, out = ctx.saved_tensors
            return g * out / a

    x = _x()
    y = checkpoint(lambda t: Scale.apply(t.sin()), x, use_reentrant=False)
    a, out = y.grad_fn.saved_tensors
    assert np.array_equal(_bits(a), _bits(x.sin())) and np.array_equal(_bits(out), _bits(y))
    y.sum().backward()
    expected = (3 * x.sin() / x.sin() * x.cos()).detach()
    assert np.array_equal(_bits(x.grad), _bits(expected))


def test_a_look_at_a_remat_node_whose_output_the_policy_keeps():
    x = _x()

    def f(t):
        return ck.name(t.sin(), "s").exp().tanh()

    y = ck.remat(f, ck.save_names("s"))(x)
    exp_node = y.grad_fn.next_functions[0][0]
    s_node = exp_node.next_functions[0][0]
    assert np.array_equal(_bits(exp_node._saved_result), _bits(x.sin().exp()))  # replayed from the kept "s"
    assert np.array_equal(_bits(s_node._saved_self), _bits(x))
    y.sum().backward()
    got = x.grad.clone()
    x.grad = None
    f(x).sum().backward()
    assert np.array_equal(_bits(got), _bits(x.grad))
