"""PyTorch's activations, softmaxes and ``argmax``/``argmin``/``relu`` methods on integer and bool
tensors.  Its kernels are floating only, so ``F.gelu``, ``F.silu``, ``F.elu``, ``F.leaky_relu``,
``F.softplus``, ``F.mish``, ``F.glu``, ``F.hardswish``, ... of an int64 tensor are its
``NotImplementedError`` ('"elu_cpu" not implemented for 'Long''), as are ``softmax``/``log_softmax``
without ``dtype=`` ('"softmax_lastdim_kernel_impl" ...', another kernel off the last dim), and
``x.argmax()`` of a bool tensor its ``RuntimeError``; ``relu``, ``hardtanh``, ``threshold`` keep
integers integer and refuse bools.  The engine answered them all (in float32 or float64, NumPy's
promotion, or an int64 ``argmax`` of a mask).  ``mg.argmax``, NumPy's function, still takes bools.

Expected answers: torch 2.13 (``tests/data/make_torch_integer_op_refusals.py`` writes
``torch_integer_op_refusals.json``).
"""
from __future__ import annotations

import builtins
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

DATA = Path(__file__).with_name("data")
sys.path.insert(0, str(DATA))
from make_torch_integer_op_refusals import VALUES, calls  # noqa: E402

TORCH = json.loads((DATA / "torch_integer_op_refusals.json").read_text())
CALLS = calls()
pytestmark = pytest.mark.filterwarnings("ignore:Implicit dimension choice:UserWarning")


@pytest.fixture(autouse=True)
def _strict_devices():
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("case", sorted(TORCH))
def test_as_pytorch_refuses_or_answers(case, device):
    name, dtype = case.rsplit("/", 1)
    want = TORCH[case]
    a = mg.tensor(VALUES, dtype=dtype, device=device)
    if "error" in want:
        with pytest.raises(getattr(builtins, want["error"])) as caught:
            CALLS[name](mg, a)
        assert str(caught.value) == want["message"]
        return
    out = CALLS[name](mg, a)
    out = out[0] if isinstance(out, tuple) else out
    assert str(out.dtype).split(".")[-1] == want["dtype"]
    np.testing.assert_allclose(np.asarray(out.tolist(), dtype=np.float64), np.asarray(want["values"], np.float64),
                               rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("device, dtype", [("cpu", mg.float32), ("cpu", mg.float64), ("strict-f32", mg.float32)])
def test_floating_input_still_answers_with_gradients(device, dtype):
    F = mg.nn.functional
    x = mg.tensor(VALUES, dtype=dtype, device=device, requires_grad=True)
    total = (F.gelu(x) + F.silu(x) + F.elu(x) + F.mish(x) + F.softmax(x, 1) + F.log_softmax(x, 0)).sum()
    total = total + x.softmax(1).sum() + F.glu(x).sum() + x.argmax().float() * 0
    total.backward()
    assert total.dtype == dtype and x.grad.dtype == dtype and bool(mg.isfinite(x.grad).all())


def test_in_place_under_grad_and_vmap_and_the_numpy_function():
    F = mg.nn.functional
    i = mg.tensor(VALUES)
    with pytest.raises(NotImplementedError, match='"elu_cpu" not implemented'):
        F.elu(i, inplace=True)
    assert i.tolist() == VALUES  # nothing written
    with pytest.raises(NotImplementedError, match="softmax_lastdim_kernel_impl"):
        mg.func.vmap(lambda row: F.softmax(row, 0))(i)
    assert mg.func.vmap(lambda row: F.softmax(row, 0, dtype=mg.float64))(i).dtype == mg.float64
    assert mg.func.grad(lambda x: F.gelu(x).sum())(i.double()).dtype == mg.float64
    mask = mg.tensor([False, True, True])
    with pytest.raises(RuntimeError, match="does not support bool input"):
        mask.argmax()
    assert mg.argmax(mask).item() == 1 and mg.argmin(mask, 0).item() == 0  # NumPy's function takes a mask
    for spelling in (lambda: mg.argmax(mask, dim=0), lambda: mg.argmin(input=mask, dim=0)):
        with pytest.raises(RuntimeError, match="does not support bool input"):  # PyTorch's dim= spelling
            spelling()


def test_a_bool_one_hot_still_scores_under_its_distribution():
    # OneHotCategorical.log_prob reads a one-hot's class with max(-1), as PyTorch's (argmax refuses bools)
    d = mg.distributions.OneHotCategorical(probs=mg.tensor([0.25, 0.75]))
    got = d.log_prob(mg.tensor([False, True]))
    assert got.item() == pytest.approx(np.log(0.75))
