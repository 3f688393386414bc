"""``out=`` at the seams: a tuple ``out=(values, indices)`` (sort, max, linalg's decompositions) on the
strict stand-in device and in float32, under the transforms (refused where PyTorch's are, answered
per example where the out is made inside the vmapped function), and the spellings a tuple asks for
(``mg.sort(x)`` and ``mg.max(x, 1)`` are NumPy's; given a tuple ``out=`` they are PyTorch's pair).

Expected values: the same call without ``out=``; PyTorch's errors as torch 2.13 words them.
"""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401  (registers the strict devices)

X = np.array([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]])


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_tuple_out_holds_each_result_on_the_device_and_in_the_dtype(device, dtype):
    x = mg.tensor(X, dtype=dtype, device=device)
    for call, plain in [
        (lambda out: mg.sort(x, 1, True, out=out), lambda: mg.sort(x, dim=1, descending=True)),
        (lambda out: mg.max(x, 1, out=out), lambda: mg.max(x, dim=1)),
        (lambda out: mg.topk(x, 2, out=out), lambda: mg.topk(x, 2)),
        (lambda out: mg.cummin(x, 0, out=out), lambda: mg.cummin(x, 0)),
        (lambda out: mg.linalg.eigh(x @ x.T, out=out), lambda: mg.linalg.eigh(x @ x.T)),
    ]:
        want = plain()
        outs = tuple(mg.empty(0, dtype=w.dtype, device=device) for w in want)
        got = call(outs)
        assert type(got).__name__ == f"{type(want).__name__}_out" and all(g is o for g, o in zip(got, outs))
        for o, w in zip(outs, want):
            assert o.device == mg.device(device) and o.dtype == w.dtype
            np.testing.assert_array_equal(o.numpy(), w.numpy())


def test_a_tuple_out_asks_for_pytorchs_pair_where_the_numpy_spelling_answers_one_tensor():
    x = mg.tensor(X)
    assert isinstance(mg.sort(x), mg.Tensor) and isinstance(mg.max(x, 1), mg.Tensor)  # NumPy's
    v, i = mg.empty(0, dtype=mg.float64), mg.empty(0, dtype=mg.int64)
    assert all(a is b for a, b in zip(mg.sort(x, out=(v, i)), (v, i)))
    assert v.tolist() == [[-1.0, 2.0, 3.0], [-2.0, 0.5, 4.0]] and i.tolist() == [[1, 2, 0], [2, 0, 1]]
    mg.max(x, 1, out=(v, i))
    assert v.tolist() == [3.0, 4.0] and i.tolist() == [0, 1]


def test_the_structure_of_out_is_refused_in_pytorchs_type():
    x = mg.tensor(X)
    with pytest.raises(TypeError, match=r"sin\(\): argument 'out' must be Tensor, not tuple"):
        mg.sin(x, out=(mg.empty(0), mg.empty(0)))
    with pytest.raises(TypeError, match=r"topk\(\): argument 'out' must be tuple of 2 Tensors, not Tensor"):
        mg.topk(x, 2, out=mg.empty(0))
    with pytest.raises(TypeError, match=r"must be tuple of 2 Tensors, not tuple of 3"):
        mg.linalg.eigh(x @ x.T, out=(mg.empty(0), mg.empty(0), mg.empty(0)))
    with pytest.raises(TypeError, match=r"argument 'out' must be Tensor, not list"):
        mg.topk(x, 2, out=[mg.empty(0), 1.0])


def test_a_tuple_out_under_grad_and_jvp_is_refused_as_torch_func():
    # torch.func.grad: "functions with out=... arguments don't support automatic differentiation";
    # torch.func.jvp: NotImplementedError naming sort_out
    def f(x):
        v, i = mg.empty(0), mg.empty(0, dtype=mg.int64)
        mg.sort(x, 0, out=(v, i))
        return v.sum()

    with pytest.raises(RuntimeError, match=r"sort\(\): functions with out=\.\.\. arguments"):
        mg.func.grad(f)(mg.tensor([2.0, 1.0]))
    with pytest.raises(NotImplementedError, match="forward AD with sort_out"):
        mg.func.jvp(f, (mg.tensor([2.0, 1.0]),), (mg.ones(2),))


def test_out_made_inside_a_vmapped_function_holds_each_examples_result():
    # (torch.func.vmap refuses every out= op: "the fallback path doesn't work on out= or view ops";
    # here an out the function makes is its own per example, and the answer is the loop's)
    x = mg.tensor(X)

    def f(row):
        v, i = mg.sort(row, out=(mg.empty(0, dtype=row.dtype), mg.empty(0, dtype=mg.int64)))
        return mg.mul(v, 2, out=mg.empty(3, dtype=row.dtype)), i

    values, indices = mg.func.vmap(f)(x)
    want = mg.sort(x, dim=1)
    assert values.tolist() == (2 * want.values).tolist() and indices.tolist() == want.indices.tolist()


def test_an_out_from_outside_a_vmapped_function_is_refused():
    # one out for every example: the batch cannot be written into it (torch: refused too)
    shared = mg.empty(3)
    with pytest.raises(RuntimeError, match="vmap"):
        mg.func.vmap(lambda row: mg.sin(row, out=shared))(mg.tensor(X))


def test_out_inside_a_checkpointed_function_of_values_that_need_no_grad():
    # a write into out= records nothing: under checkpoint, of inputs that need no grad, it is the plain call
    x = mg.tensor(X)

    def f(t):
        return mg.linalg.eigh(t @ t.T, out=(mg.empty(0, dtype=t.dtype), mg.empty(0, dtype=t.dtype)))[0]

    np.testing.assert_array_equal(mg.checkpoint.checkpoint(f, x).numpy(), mg.linalg.eigvalsh(x @ x.T).numpy())
