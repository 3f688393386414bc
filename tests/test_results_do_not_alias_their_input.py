"""A function that PyTorch answers with a new tensor answers with a new tensor here too: a write
into the result must not reach the input.  The 0-d shortcuts of ``max``/``min`` along a dim,
``sort``/``msort``/``topk``, ``diff(n=0)`` and ``matrix_power(a, 1)`` returned the input itself,
so ``v = x.max(0).values; v.add_(1)`` changed ``x``.  And the other way round: where PyTorch
returns the input itself (``flatten`` merging no dims) or a view (``transpose(0, 0)`` of a 0-d
tensor), so does the engine.

Fixtures made offline with torch 2.13 (the same lines with ``torch`` for ``mg``)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)

NEW_TENSORS = {
    "max(0).values": lambda x: x.max(0).values,
    "max(dim=-1)[0]": lambda x: x.max(dim=-1)[0],
    "min(0).values": lambda x: x.min(0).values,
    "mg.max(x, dim=0).values": lambda x: mg.max(x, dim=0).values,
    "sort(0).values": lambda x: x.sort(0).values,
    "sort(descending)": lambda x: x.sort(-1, descending=True)[0],
    "msort": lambda x: x.msort(),
    "topk(1).values": lambda x: x.topk(1).values,
    "diff(n=0)": lambda x: x.reshape(1, 1).diff(n=0),
    "matrix_power(1)": lambda x: x.reshape(1, 1).matrix_power(1),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", list(NEW_TENSORS))
def test_a_write_into_the_result_does_not_reach_the_input(device, dtype, name):
    # torch 2.13: x = torch.tensor(1.5); v = x.max(0).values; v.add_(1) -> x 1.5, v 2.5 (each row alike)
    x = mg.tensor(1.5, dtype=dtype, device=device)
    result = NEW_TENSORS[name](x)
    assert result is not x
    result.add_(1)
    assert x.item() == 1.5 and float(result.reshape(()).item()) == 2.5


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", list(NEW_TENSORS))
def test_the_gradient_through_the_result_of_a_zero_d_input(name):
    # torch 2.13: x = torch.tensor(1.5, requires_grad=True); y = x * 2; v = <row>(y); v.mul_(3);
    # (v.sum() + y).backward() -> x.grad 8 (6 through v, 2 through y, whose value stays 3)
    x = mg.tensor(1.5, requires_grad=True)
    y = x * 2
    result = NEW_TENSORS[name](y)
    result.mul_(3)
    (result.sum() + y).backward()
    assert y.item() == 3.0 and x.grad.item() == 8.0


def test_under_forward_mode_the_input_keeps_its_tangent():
    # torch 2.13: torch.func.jvp(lambda x: (lambda v: (v.mul_(3), x))(x.max(0).values)[1], (tensor(1.5),),
    # (tensor(1.),)) -> (tensor(1.5), tensor(1.))
    def f(x):
        x.max(0).values.mul_(3)
        x.sort(0).values.mul_(3)
        return x

    value, tangent = mg.func.jvp(f, (mg.tensor(1.5),), (mg.tensor(1.0),))
    assert value.item() == 1.5 and tangent.item() == 1.0


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_inside_checkpoint_the_values_and_gradients_are_the_plain_runs():
    def f(x):
        v = x.max(0).values
        v.mul_(3)
        return v + x

    grads = []
    for run in (f, lambda x: mg.checkpoint.checkpoint(f, x, use_reentrant=False)):
        x = mg.tensor(1.5, requires_grad=True)
        out = run(x * 1)
        out.backward()
        grads.append((out.item(), x.grad.item()))
    assert grads[0] == grads[1] == (6.0, 4.0)


def test_flatten_of_no_dims_is_the_input_itself_as_pytorchs():
    # torch 2.13: x.flatten(1, 1) is x, x.flatten(-1) of (1, 1) is x, v.flatten() of 1-d is v; a 0-d
    # x.flatten() is a (1,) view; x.transpose(0, 0) of 0-d is a view, not x
    x = mg.ones(2, 3, requires_grad=True)
    assert x.flatten(1, 1) is x and x.flatten(0, 0) is x and mg.flatten(x, -1, -1) is x
    assert x.flatten(0, 1) is not x and x.flatten(0, 1).shape == (6,)
    v = mg.ones(3)
    assert v.flatten() is v
    s = mg.tensor(2.0, requires_grad=True)
    assert s.flatten().shape == (1,) and not s.flatten().is_leaf
    t = s.transpose(0, 0)
    assert t is not s and t.shape == () and not t.is_leaf
    w = mg.tensor(2.0)
    w.transpose(0, -1).add_(1)  # a view: the write reaches w, as PyTorch's
    assert w.item() == 3.0
    assert np.array_equal(x.flatten(1, 1).numpy(), np.ones((2, 3), np.float32))
