"""``xp.scatter_add`` of rows picked by one integer array (an embedding's gradient) adds a rank at a
time (``backend._added_rank_by_rank``): the first row of every position at once, then every second,
... -- each position's sum ``((t + r0) + r1) + ...`` in the index's order, as ``numpy.add.at``'s.
Compared with ``add.at`` byte for byte over random programs; what the rank path does not take
(negative or out-of-range indices, other dtypes, heavy repeats, rows of few numbers, values in the
target's own memory) is ``add.at`` itself."""

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
    width = (int(rs.randint(16, 40)),) if seed % 4 else (int(rs.randint(4, 9)), int(rs.randint(4, 9)))
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
    target = np.zeros((5, 16))
    xp.scatter_add(target, np.array([1, 1, 4]), np.ones((3, 16)))
    assert taken == [True] and target[1].tolist() == [2.0] * 16
    for index in (np.array([-1, 1, 1]), np.array([0, 1, 2])[::-1].copy()):  # a negative index wraps, as add.at's
        before = np.zeros((5, 16))
        want = before.copy()
        np.add.at(want, index, np.ones((3, 16)))
        xp.scatter_add(before, index, np.ones((3, 16)))
        assert before.tobytes() == want.tobytes()
    with pytest.raises(IndexError):
        xp.scatter_add(np.zeros((5, 16)), np.array([0, 5]), np.ones((2, 16)))
    heavy = np.zeros((2, 16))
    xp.scatter_add(heavy, np.zeros(backend._MOST_REPEATS + 1, dtype=np.int64),
                   np.ones((backend._MOST_REPEATS + 1, 16)))
    assert taken[-1] is False and heavy[0, 0] == backend._MOST_REPEATS + 1


def test_narrow_rows_are_add_ats_which_is_faster_there(monkeypatch):
    # gathering a row costs what add.at costs per number: rows of 1-8 numbers ran 1.3-12x slower ranked
    taken = []
    real = backend._added_rank_by_rank
    monkeypatch.setattr(backend, "_added_rank_by_rank", lambda *a: taken.append(real(*a)) or taken[-1])
    for width in ((1,), (4,), (3, 5), (backend._FEWEST_ROW_NUMBERS,), (4, 4)):
        xp.scatter_add(np.zeros((6,) + width), np.array([0, 5, 0, 2]), np.ones((4,) + width))
    assert taken == [False, False, False, True, True]
    assert not real(np.zeros((0, 32)), np.zeros((0,), dtype=np.int64), np.zeros((0, 32)))  # (no row to read)


def test_values_in_the_targets_own_memory_are_read_as_add_at_reads_them():
    # add.at reads each value after the writes before it: a rank's gathered rows would be stale
    start = np.arange(10 * 16, dtype=np.float64).reshape(10, 16)
    index = np.array([0, 0, 1, 2, 0, 3, 1, 4, 5, 0])
    for values_of in (lambda t: t, lambda t: t[::-1], lambda t: t[:, ::-1]):
        want, got = start.copy(), start.copy()
        np.add.at(want, index, values_of(want))
        xp.scatter_add(got, index, values_of(got))
        assert got.tobytes() == want.tobytes()


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
