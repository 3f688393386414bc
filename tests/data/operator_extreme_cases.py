"""Reductions, scans, selections, gathers/scatters and shape ops at extremal inputs -- empty and 0-d
tensors, duplicate and negative dims, ties, NaNs, integer and bool dtypes, duplicate indices -- each
written once as an expression of ``L`` (``torch`` or ``minigrad_ckpt``) and the inputs below:
make_torch_operator_extremes.py records what torch 2.13 answers (each result's dtype, shape and
values, or the builtin type of its error); tests/test_operator_extremes_vs_torch.py replays them.

``grad(f, *inputs)`` is the gradient of ``(f(*inputs) * weights).sum()`` in each float input (fixed
pseudo-random weights, so every output element's gradient shows), ``None`` for one not reached.
"""

import numpy as np

INPUTS = {
    "X": np.array([[1.0, 5.0, 3.0, -0.0], [4.0, 5.0, 0.5, 2.0], [9.0, -1.0, 2.0, 7.0]]),
    "N": np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 2.0]]),
    "I": np.array([[3, 1, 3], [2, 2, 0]], dtype=np.int64),
    "B": np.array([[True, False, True], [False, False, True]]),
    "E": np.zeros((0,)),
    "E23": np.zeros((2, 0, 3)),
    "Z": np.array(2.5),
    "S": np.array([10.0, 20.0, 30.0, 40.0]),
}

CASES = {
    # index_select keeps a 0-d input's rank, whatever the index's (torch: 0-d)
    "index_select_0d_input_1d_index": "L.tensor(1.5).index_select(0, L.tensor([0]))",
    "index_select_0d_input_0d_index": "L.tensor(1.5).index_select(0, L.tensor(0))",
    "index_select_1d_input_0d_index": "S.index_select(0, L.tensor(1))",
    "index_select_0d_input_two_indices": "L.tensor(1.5).index_select(0, L.tensor([0, 0]))",
    # indices that are not integers: torch's RuntimeError (IndexError for index_fill and x[i])
    "index_select_float_index": "X.index_select(0, L.tensor([1.0]))",
    "index_select_bool_index": "X.index_select(0, L.tensor([True, False, True]))",
    "gather_float_index": "X.gather(0, L.tensor([[1.0]]))",
    "scatter_float_index": "X.scatter(0, L.tensor([[1.0]]), 2.0)",
    "index_add_float_index": "X.index_add(0, L.tensor([1.0]), X[:1])",
    "index_copy_float_index": "X.index_copy(0, L.tensor([1.0]), X[:1])",
    "index_fill_float_index": "X.index_fill(0, L.tensor([1.0]), 2.0)",
    "take_float_index": "X.take(L.tensor([1.0]))",
    "put_float_index": "X.put(L.tensor([1.0]), L.tensor([2.0], dtype=X.dtype))",
    "take_along_dim_float_index": "L.take_along_dim(X, L.tensor([[1.0]]), 0)",
}


def weights(shape) -> np.ndarray:
    """The fixed weights a gradient case sums its output with."""
    return np.random.RandomState(0).standard_normal(shape) if shape else np.array(1.5)


def run(lib, expression: str):
    """Evaluate ``expression`` with ``L`` as ``lib`` and the INPUTS as float64/int/bool tensors of it."""

    def grad(f, *inputs):
        leaves = [t.detach().requires_grad_(True) if t.dtype.is_floating_point else t for t in inputs]
        out = f(*leaves)
        out = out[0] if isinstance(out, tuple) else out
        total = (out * lib.tensor(weights(tuple(out.shape)), dtype=out.dtype)).sum()
        wanted = [t for t in leaves if t.requires_grad]
        return tuple(lib.autograd.grad(total, wanted, allow_unused=True))

    scope = {"L": lib, "grad": grad, "np": np}
    scope.update({name: lib.tensor(value) for name, value in INPUTS.items()})
    return eval(expression, scope)  # noqa: S307 -- the table's own expressions
