"""``nn.Embedding(..., sparse=True)`` and ``F.embedding(..., sparse=True)`` train with a dense gradient.

PyTorch's sparse flag makes the table's gradient a sparse tensor; this engine has no sparse layout, and
``Embedding`` refused the flag while ``EmbeddingBag`` accepted it (dense) -- DLRM-style and word2vec-style
code, which builds its tables with ``sparse=True`` and steps them with SGD or Adagrad, stopped at
construction. The optimizers PyTorch lets step a sparse gradient reach the same parameters from the
dense one (rows not looked up get zeros: momentum still decays and moves them, as PyTorch's sparse
momentum buffer does; Adagrad's sums and steps leave them as they were). Numbers pasted from torch 2.13
with ``sparse=True`` (float64, three batches, repeated ids).
"""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

W = np.arange(10, dtype=np.float64).reshape(5, 2) / 7 - 0.5
BATCHES = [[0, 2, 2], [4, 1], [2, 3, 3]]
TORCH_AFTER = {
    "SGD": [[-0.22899999999999998, -0.16357142857142853], [-0.13285714285714287, -0.044285714285714296],
            [-0.009428571428571442, -0.028285714285714306], [0.21428571428571427, 0.30000000000000004],
            [0.3985714285714285, 0.4871428571428572]],
    "Adagrad": [[-0.40465374108453167, -0.26570323765963094], [-0.134616142896838, -0.03066684027236698],
                [0.0023698255643020707, 0.09546728623221809], [0.2614207866129828, 0.40316376503913637],
                [0.5467126188412121, 0.688650227223872]],
}


@pytest.mark.parametrize("optimizer", ["SGD", "Adagrad"])
def test_a_sparse_table_steps_to_pytorchs_parameters(optimizer):
    table = mg.nn.Embedding(5, 2, sparse=True, dtype=mg.float64)
    with mg.no_grad():
        table.weight.copy_(mg.tensor(W))
    opt = (mg.optim.SGD(table.parameters(), lr=0.1, momentum=0.9) if optimizer == "SGD" else
           mg.optim.Adagrad(table.parameters(), lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1))
    for ids in BATCHES:
        opt.zero_grad()
        out = table(mg.tensor(ids))
        (out * out).sum().backward()
        opt.step()
    np.testing.assert_allclose(table.weight.detach().numpy(), TORCH_AFTER[optimizer], rtol=1e-14, atol=1e-15)


def test_the_flag_is_kept_and_shown_as_pytorch_shows_it():
    table = mg.nn.Embedding(10, 3, padding_idx=0, max_norm=1.0, sparse=True)
    assert table.sparse is True
    assert repr(table) == "Embedding(10, 3, padding_idx=0, max_norm=1.0, sparse=True)"  # torch 2.13's
    assert repr(mg.nn.Embedding(10, 3)) == "Embedding(10, 3)"
    assert mg.nn.Embedding.from_pretrained(mg.ones(3, 2), sparse=True).sparse is True


def test_the_functional_form_gives_the_dense_gradient():
    w = mg.tensor(W, requires_grad=True)
    F.embedding(mg.tensor([1, 1, 3]), w, sparse=True).sum().backward()
    expected = np.zeros((5, 2))
    expected[1], expected[3] = 2.0, 1.0
    np.testing.assert_array_equal(w.grad.numpy(), expected)
    assert not w.grad.is_sparse
