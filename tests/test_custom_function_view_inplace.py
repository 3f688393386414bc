"""PyTorch refuses, in grad mode, an in-place change of a custom Function's output that is an input's
memory -- the input returned as-is, or a view of it -- and of any view of such an output: the write would
bypass the Function's backward ("Output 0 of Id is a view and is being modified inplace. This view was
created inside a custom Function ..."; of several outputs, "... the output of a function that returns
multiple views ...").  A module's full backward hooks pass its outputs through such a Function
(``BackwardHookFunction``), so ``nn.ReLU(inplace=True)`` after a hooked layer is refused too.  The engine
took these writes silently before.  Allowed, as in PyTorch: the write under ``no_grad``, into a clone or a
``detach()``, into an output that does not require grad, into another output than the viewing one, and
under the ``mg.func`` transforms (``torch.func`` takes it).

Expected behaviour: torch 2.13 on the same programs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401 -- registers the strict devices

sys.path.insert(0, str(Path(__file__).parent))
from func_custom_functions import IdentitySetupContext  # noqa: E402 -- returns its argument, torch.func's style

ONE = "is a view and is being modified inplace. This view was created inside a custom Function"
SEVERAL = "This view is the output of a function that returns multiple views"


class Id(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return 2 * g


class Flat(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view(-1)

    @staticmethod
    def backward(ctx, g):
        return 3 * g.view(2, 2)


class Copy(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return 3 * g


class WithDouble(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x, x * 2

    @staticmethod
    def backward(ctx, g, g2):
        return g + 2 * g2


class Detached(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.detach()

    @staticmethod
    def backward(ctx, g):
        return g


def start(device="cpu", dtype=mg.float64):
    return mg.ones(2, 2, dtype=dtype, device=device, requires_grad=True) * 1.0


WRITES = {
    "mul_": lambda y: y.mul_(2),
    "relu_": lambda y: y.relu_(),
    "setitem": lambda y: y.__setitem__(0, 0.0),
    "view_of_output": lambda y: y[0].mul_(2),
    "copy_": lambda y: y.copy_(mg.zeros_like(y)),
}


@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("fn", [Id, Flat], ids=lambda f: f.__name__)
@pytest.mark.parametrize("device,dtype", [("cpu", mg.float64), ("cpu", mg.float32), ("strict", mg.float64),
                                          ("strict-f32", mg.float32)])
def test_a_write_into_an_output_that_is_the_input_is_refused(write, fn, device, dtype):
    y = fn.apply(start(device, dtype))
    with pytest.raises(RuntimeError, match=f"Output 0 of {fn.__name__} {ONE}"):
        WRITES[write](y)


def test_the_writes_pytorch_allows():
    x = mg.ones(2, 2, dtype=mg.float64, requires_grad=True)
    y = Copy.apply(x * 1.0)  # a new tensor: the write is recorded after the Function
    y.mul_(2)
    y.sum().backward()
    assert x.grad.tolist() == [[6.0, 6.0], [6.0, 6.0]]  # torch's
    y2 = Id.apply(start())
    y2.detach().mul_(1)  # a detached alias (PyTorch then refuses backward through y2: not checked here)
    with mg.no_grad():
        y2.mul_(1)  # no_grad
    Detached.apply(start()).mul_(2)  # a detached alias of the input: no view (PyTorch's takes the write too)
    z = Id.apply(mg.ones(2))  # no input requires grad: nothing to bypass
    z.mul_(2)
    assert z.tolist() == [2.0, 2.0] and y2.grad_fn.name() == "IdBackward"


def test_of_several_outputs_the_viewing_one_is_refused():
    same, double = WithDouble.apply(start())
    with pytest.raises(RuntimeError, match=f"Output 0 of WithDouble is a view and is being modified inplace. "
                                           f"{SEVERAL}"):
        same.mul_(2)
    double.mul_(2)  # not the input's memory


def test_a_module_with_full_backward_hooks_refuses_writes_into_its_output():
    mg.manual_seed(0)
    layer = mg.nn.Linear(2, 2).double()
    layer.register_full_backward_hook(lambda module, grad_input, grad_output: None)
    x = mg.ones(3, 2, dtype=mg.float64, requires_grad=True)
    y = layer(x)
    assert y.grad_fn.name() == "BackwardHookFunctionBackward"
    with pytest.raises(RuntimeError, match=f"Output 0 of BackwardHookFunction {ONE}"):
        y.mul_(2)
    with pytest.raises(RuntimeError, match=f"Output 0 of BackwardHookFunction {ONE}"):
        mg.nn.Sequential(layer, mg.nn.ReLU(inplace=True))(x)
    gru = mg.nn.GRU(2, 2).double()
    gru.register_full_backward_hook(lambda module, grad_input, grad_output: None)
    out, h = gru(mg.ones(1, 1, 2, dtype=mg.float64, requires_grad=True))
    with pytest.raises(RuntimeError, match=f"Output 0 of BackwardHookFunction is a view .* {SEVERAL}"):
        out.mul_(2)
    plain = mg.nn.Sequential(mg.nn.Linear(2, 2).double(), mg.nn.ReLU(inplace=True))
    plain(x).sum().backward()  # without hooks the layer's output is its own


def test_under_the_func_transforms_the_write_is_taken():
    def body(z):
        b = IdentitySetupContext.apply(z * 1.0)
        b[1:].mul_(z[:-1])
        return (b * z).sum()

    z = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)
    np.testing.assert_allclose(mg.func.grad(body)(z).numpy(), [6.0, 13.0, 12.0])  # torch.func.grad's
    primal, tangent = mg.func.jvp(body, (z,), (mg.ones(3, dtype=mg.float64),))
    assert (primal.item(), tangent.item()) == (23.0, 31.0)  # torch.func.jvp's
    with pytest.raises(RuntimeError, match=ONE):  # outside the transforms: refused
        body(z.clone().requires_grad_())


STALE = "is a view and its base or another view of its base has been modified inplace. This view was created " \
        "inside a custom Function"


@pytest.mark.parametrize("write", ["mul_", "setitem", "other_view"])
@pytest.mark.parametrize("device,dtype", [("cpu", mg.float64), ("strict-f32", mg.float32)])
def test_a_recorded_write_into_the_base_makes_the_output_refuse_backward(write, device, dtype):
    x = mg.ones(2, 2, dtype=dtype, device=device, requires_grad=True)
    h = x * 1.0
    y = Flat.apply(h)
    before = y * 1.0  # used before the write: its history is the Function's
    row = y[1:]  # a view of the output
    {"mul_": lambda: h.mul_(3), "setitem": lambda: h.__setitem__(0, 5.0),
     "other_view": lambda: h.view(-1)[:3].mul_(3)}[write]()
    for stale in (y, row):  # PyTorch regenerates their grad_fn, which would bypass Flat's backward: refused
        with pytest.raises(RuntimeError, match=STALE):
            stale.sum().backward()
    before.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 3.0))  # torch's: Flat's backward


@pytest.mark.parametrize("kind", ["full", "pre", "global_pre"])
def test_an_in_place_module_with_backward_hooks_refuses_to_write_its_input(kind):
    """PyTorch's BackwardHook passes a hooked module's inputs through BackwardHookFunction, with full
    backward hooks or pre-hooks alone: ``nn.ReLU(inplace=True)`` then writes into that Function's output."""
    relu = mg.nn.ReLU(inplace=True)
    handle = None
    if kind == "full":
        relu.register_full_backward_hook(lambda module, grad_input, grad_output: None)
    elif kind == "pre":
        relu.register_full_backward_pre_hook(lambda module, grad_output: None)
    else:
        handle = mg.nn.modules.module.register_module_full_backward_pre_hook(lambda module, grad_output: None)
    try:
        with pytest.raises(RuntimeError, match=f"Output 0 of BackwardHookFunction {ONE}"):
            relu(start())
    finally:
        if handle is not None:
            handle.remove()
    plain = mg.nn.ReLU(inplace=True)
    plain.register_forward_hook(lambda module, args, output: None)  # a forward hook passes nothing through
    x = mg.ones(2, dtype=mg.float64, requires_grad=True)
    plain(x * 1.0).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_inside_a_checkpoint_as_in_pytorch():
    """torch.utils.checkpoint (use_reentrant=False) refuses the write too; a clone's write replays."""

    def writes_into_the_input(x):
        y = Id.apply(x * 1.0)
        y.mul_(2)
        return y.sum()

    def writes_into_a_copy(x):
        y = Copy.apply(x * 1.0)
        y.mul_(2)
        return (y * y).sum()

    x = mg.ones(2, dtype=mg.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"Output 0 of Id {ONE}"):
        mg.checkpoint.checkpoint(writes_into_the_input, x)
    mg.checkpoint.checkpoint(writes_into_a_copy, x).backward()
    assert x.grad.tolist() == [24.0, 24.0]  # torch's
