"""Reading the ``.grad`` of a non-leaf tensor that backward leaves None warns, in PyTorch's words:
torch 2.13 warns "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed..."
for ``(x * 2).grad``, a view's, ``x.to(...)``'s -- the usual slip of a gradient looked for on the
wrong tensor, which here read None in silence.  No warning for a leaf, a tensor that retains its
gradient, a non-leaf whose ``.grad`` ``backward(inputs=...)`` set, or a detached tensor.
"""

from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

_X = [1.0, 2.0]


def _retaining(x):
    r = x * 3
    r.retain_grad()
    return r


def _set_by_backward_inputs(x):
    h = x * 2
    (h * h).sum().backward(inputs=[h])
    return h


def _made_in_no_grad(x):
    with mg.no_grad():
        return x * 2


WARNS = {"product": lambda x: x * 2, "view": lambda x: x[0], "cast": lambda x: x.to(mg.float16),
         "checkpointed": lambda x: mg.checkpoint.checkpoint(lambda a: a.exp(), x, use_reentrant=False)}
SILENT = {"leaf": lambda x: x, "retains grad": _retaining, "set by backward(inputs=)": _set_by_backward_inputs,
          "detached": lambda x: (x * 2).detach(), "made in no_grad": _made_in_no_grad,
          "constant": lambda x: mg.tensor(_X, device=x.device)}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("make", list(WARNS.values()), ids=list(WARNS))
def test_reading_a_non_leaf_grad_warns(make, device):
    t = make(mg.tensor(_X, device=device, requires_grad=True))
    with pytest.warns(UserWarning, match=r"^The \.grad attribute of a Tensor that is not a leaf Tensor is being "
                                         r"accessed\. .*use \.retain_grad\(\) on the non-leaf Tensor"):
        assert t.grad is None


@pytest.mark.parametrize("make", list(SILENT.values()), ids=list(SILENT))
def test_no_warning_where_pytorch_gives_none(make):
    t = make(mg.tensor(_X, requires_grad=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t.grad  # noqa: B018  (reading is the test)


def test_a_module_cast_of_a_non_leaf_buffer_does_not_warn():
    lin = mg.nn.Linear(2, 2)
    lin.register_buffer("scaled", lin.weight * 2)  # a buffer with a history
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lin.double()
