"""PyTorch's ``out=`` on the common functions (``mg.matmul``, ``mg.add``, ``mg.cat``, ``mg.sum``,
``mg.zeros``, ``mg.rand``, ...; a TypeError before): the result written into ``out`` and ``out``
returned, resized with PyTorch's warning, PyTorch's errors for a dtype it refuses and for an
argument that requires grad in grad mode (``minigrad_ckpt/out_arguments.py``).

Expected: torch 2.13 on the same calls (``tests/data/make_torch_out_arguments.py``).
"""
from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from out_argument_cases import CASES  # noqa: E402

TORCH = json.loads((DATA / "torch_out_arguments.json").read_text())


def _run(expression: str, device: str) -> tuple:
    made = []

    def o(*shape, dtype=mg.float32):
        made.append(mg.empty(shape, dtype=dtype, device=device))
        return made[-1]

    a = mg.ones(2, 3, device=device)
    scope = {"lib": mg, "a": a, "b": mg.ones(3, 2, device=device), "o": o}
    result = eval(expression, scope)  # noqa: S307 (the cases are the test's own)
    return result, (made[-1] if made else a)


@pytest.mark.parametrize("case_id, expression, values", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_out_answers_as_torch(case_id, expression, values, device):
    want = TORCH[case_id]
    if "error" in want:
        with pytest.raises({"RuntimeError": RuntimeError, "TypeError": TypeError}[want["error"]]) as info:
            _run(expression, device)
        assert str(info.value) == want["message"]
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result, out = _run(expression, device)
    assert result is out
    assert [str(w.message) for w in caught] == want["warnings"]
    assert str(result.dtype) == want["dtype"] and list(result.shape) == want["shape"]
    assert result.device == mg.device(device)
    if values:
        got = result.numpy()
        got = np.stack([got.real, got.imag], -1) if np.iscomplexobj(got) else got
        np.testing.assert_allclose(got, want["values"], rtol=1e-6)


def test_out_under_no_grad_takes_arguments_that_require_grad():
    # torch: with torch.no_grad(): torch.add(x, x, out=w) for x and w that require grad writes into w
    x, w = mg.ones(2, requires_grad=True), mg.zeros(2, requires_grad=True)
    with mg.no_grad():
        assert mg.add(x, x, out=w) is w
    assert w.tolist() == [2.0, 2.0] and w.requires_grad and w.is_leaf


def test_out_writes_through_a_view_into_its_base():
    base = mg.zeros(5, dtype=mg.float32)
    version = base._version
    mg.mul(mg.ones(2), 3, out=base[:2])
    assert base.tolist() == [3.0, 3.0, 0.0, 0.0, 0.0] and base._version != version


def test_methods_keep_torchs_refusal_of_out():
    # torch: a.exp(out=o) is TypeError (Tensor's methods take no out=); numpy.sum(t) still works
    a = mg.ones(2)
    with pytest.raises(TypeError):
        a.exp(out=mg.empty(2))
    assert float(np.sum(a)) == 2.0
    with pytest.raises(TypeError):
        np.sum(a, out=np.empty(()))


def test_out_none_is_the_function_itself():
    a = mg.ones(2, 3, requires_grad=True)
    y = mg.matmul(a, a.T, out=None)
    assert y.requires_grad and mg.mul is mg.multiply


def test_out_under_the_transforms_is_refused_as_torch_func():
    # torch.func.grad: the requires-grad RuntimeError; torch.func.jvp: NotImplementedError
    # "Trying to use forward AD with mul_out that does not support it because it is an out= function"
    def f(x):
        o = mg.empty(3)
        mg.mul(x, 2, out=o)
        return o.sum()

    with pytest.raises(RuntimeError, match=r"mul\(\): functions with out=\.\.\. arguments"):
        mg.func.grad(f)(mg.ones(3))
    with pytest.raises(NotImplementedError, match="forward AD with mul_out that does not support it"):
        mg.func.jvp(f, (mg.ones(3),), (mg.ones(3),))


def test_out_inside_checkpoint_is_refused_where_the_input_requires_grad():
    x = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        mg.checkpoint.checkpoint(lambda t: mg.exp(t, out=mg.empty(3)), x)
