"""An in-place arithmetic write whose operand does not broadcast to the tensor's own shape is
PyTorch's ``RuntimeError`` with its message, grad mode or not.

``mg.tensor([1., 2.]).add_(mg.ones(2, 2))`` raised NumPy's ``ValueError`` ("non-broadcastable output
operand") outside the tape; torch 2.13 raises ``RuntimeError: output with shape [2] doesn't match the
broadcast shape [2, 2]``, and for sizes that do not broadcast at all ``RuntimeError: The size of
tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0``.  The error is a
``BroadcastMismatch``, a ``ValueError`` as well, so handlers of NumPy's type still catch it.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

WRITES = {
    "add_": lambda x, o: x.add_(o),
    "sub_": lambda x, o: x.sub_(o),
    "mul_": lambda x, o: x.mul_(o),
    "div_": lambda x, o: x.div_(o),
    "+=": lambda x, o: x.__iadd__(o),
    "*=": lambda x, o: x.__imul__(o),
}


@pytest.mark.parametrize("device", ["cpu", "strict", "strict-f32"])
@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_wider_operand_is_pytorchs_runtime_error(write, grad, device):
    x = mg.tensor([1.0, 2.0], dtype=mg.float32, device=device, requires_grad=grad) * 1
    wider = mg.ones(2, 2, dtype=mg.float32, device=device)
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"):
        WRITES[write](x, wider)
    with pytest.raises(ValueError):  # (still NumPy's type too)
        WRITES[write](mg.tensor([1.0, 2.0], device=device, dtype=mg.float32), wider)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_sizes_that_do_not_broadcast_name_the_dimension(device):
    x = mg.tensor([1.0, 2.0], device=device)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 0"):
        x.add_(mg.tensor([1.0, 2.0, 3.0], device=device))
    assert x.tolist() == [1.0, 2.0]


def test_operands_that_broadcast_to_the_tensor_still_write():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    x.add_(mg.tensor([10.0, 20.0]))
    x.mul_(mg.tensor(2.0))
    x -= mg.tensor([[1.0], [2.0]])
    assert x.tolist() == [[21.0, 43.0], [24.0, 46.0]]


@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_wider_operand_into_a_dual_is_the_same_error(write):
    # The forward-mode tangent of the write was computed first and failed in broadcast_to with
    # expand's message ("the number of sizes provided (1) must be greater or equal ..."), an
    # InvalidShape; torch 2.13 raises its broadcast message for the dual as for a plain tensor.
    import minigrad_ckpt.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        x = fwAD.make_dual(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 1.0])) * 1
        with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"):
            WRITES[write](x, mg.ones(2, 2))
        with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"):
            WRITES[write](x, fwAD.make_dual(mg.ones(2, 2), mg.ones(2, 2)))
        assert fwAD.unpack_dual(x).primal.tolist() == [1.0, 2.0]
        assert fwAD.unpack_dual(x).tangent.tolist() == [1.0, 1.0]


def test_a_wider_operand_inside_jvp_is_the_same_error():
    def f(x):
        return x.clone().mul_(mg.ones(3, 2))
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[3, 2\]"):
        mg.func.jvp(f, (mg.tensor([1.0, 2.0]),), (mg.tensor([1.0, 1.0]),))
