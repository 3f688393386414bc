"""``xp.scatter_add`` of rows picked by one integer array (an embedding's gradient) adds a rank at a
time (``backend._added_rank_by_rank``): the first row of every position at once, then every second,
... -- each position's sum ``((t + r0) + r1) + ...`` in the index's order, as ``numpy.add.at``'s.
Compared with ``add.at`` byte for byte over random programs; what the rank path does not take
(negative or out-of-range indices, other dtypes, heavy repeats) is ``add.at`` itself."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)
from minigrad_ckpt import backend
from minigrad_ckpt.backend import numpy_namespace as xp


@pytest.mark.parametrize("seed", range(40))
def test_the_ranks_add_what_add_at_adds_bit_for_bit(seed):
    rs = np.random.RandomState(seed)
    dtype = [np.float16, np.float32, np.float64, np.int64, np.complex128][seed % 5]
    rows = int(rs.randint(1, 40))
    index = rs.randint(0, rows, size=tuple(rs.randint(1, 9, size=rs.randint(1, 3))))
    width = tuple(rs.randint(1, 5, size=rs.randint(1, 3)))
    values = (rs.randn(*index.shape, *width) * 10).astype(dtype)
    if dtype in (np.float32, np.float64):
        values.reshape(-1)[: min(4, values.size)] = [-0.0, np.nan, np.inf, -0.0][: min(4, values.size)]
    start = np.zeros if seed % 2 else (lambda shape, dtype: (rs.randn(*shape) * 10).astype(dtype))
    want = start((rows, *width), dtype)
    got = want.copy()
    np.add.at(want, index, values)
    xp.scatter_add(got, (index,) if seed % 3 else index, values)
    assert got.tobytes() == want.tobytes()


def test_the_rank_path_is_taken_and_what_it_does_not_take_is_add_at(monkeypatch):
    taken = []
    real = backend._added_rank_by_rank
    monkeypatch.setattr(backend, "_added_rank_by_rank", lambda *a: taken.append(real(*a)) or taken[-1])
    target = np.zeros((5, 3))
    xp.scatter_add(target, np.array([1, 1, 4]), np.ones((3, 3)))
    assert taken == [True] and target[1].tolist() == [2.0] * 3
    for index in (np.array([-1, 1, 1]), np.array([0, 1, 2])[::-1].copy()):  # a negative index wraps, as add.at's
        before = np.zeros((5, 3))
        want = before.copy()
        np.add.at(want, index, np.ones((3, 3)))
        xp.scatter_add(before, index, np.ones((3, 3)))
        assert before.tobytes() == want.tobytes()
    with pytest.raises(IndexError):
        xp.scatter_add(np.zeros((5, 3)), np.array([0, 5]), np.ones((2, 3)))
    heavy = np.zeros((2, 3))
    xp.scatter_add(heavy, np.zeros(backend._MOST_REPEATS + 1, dtype=np.int64),
                   np.ones((backend._MOST_REPEATS + 1, 3)))
    assert taken[-1] is False and heavy[0, 0] == backend._MOST_REPEATS + 1


def test_an_embeddings_gradient_is_add_ats_on_the_cpu_and_the_strict_device():
    rs = np.random.RandomState(3)
    ids = rs.randint(0, 11, (6, 40))
    w = rs.randn(11, 8).astype(np.float32)
    g = rs.randn(6, 40, 8).astype(np.float32)
    want = np.zeros_like(w)
    np.add.at(want, ids, g)
    for device in ("cpu", "strict"):
        weight = mg.tensor(w, device=device, requires_grad=True)
        F.embedding(mg.tensor(ids, device=device), weight).backward(mg.tensor(g, device=device))
        assert weight.grad.to("cpu").numpy().tobytes() == want.tobytes()
    x = mg.tensor(w, requires_grad=True)
    (gg,) = mg.autograd.grad((x[mg.tensor(ids)] * mg.tensor(g)).sum(), x, create_graph=True)  # through a Tensor
    assert gg.detach().numpy().tobytes() == want.tobytes()
