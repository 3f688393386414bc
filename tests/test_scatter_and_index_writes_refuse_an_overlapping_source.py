"""PyTorch refuses (``assert_no_overlap``) a scatter or index write whose source shares memory with
the tensor written: each element is read at another place than it is written, so the answer would
depend on the order of the writes.  NumPy's answer here read the source first, silently.  A
source in memory of its own, a disjoint view, a number, and a strided source (PyTorch's "too hard
to tell", which writes on) are written, as there.

Fixtures made offline with torch 2.13 (the same lines with ``torch`` for ``mg``; each refusal is
"unsupported operation: some elements of the input tensor and the written-to tensor refer to a
single memory location")."""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict stand-in devices)


def _index(device, *values):
    return mg.tensor(list(values), device=device)


REFUSED = {
    "scatter_": lambda x, d: x.scatter_(0, mg.zeros(1, 3, dtype=mg.int64, device=d), x[:1]),
    "scatter_add_": lambda x, d: x.scatter_add_(0, mg.zeros(1, 3, dtype=mg.int64, device=d), x[1:]),
    "scatter_reduce_": lambda x, d: x.scatter_reduce_(0, mg.zeros(1, 3, dtype=mg.int64, device=d), x[1:], "sum"),
    "index_add_": lambda x, d: x.index_add_(0, _index(d, 0), x[1:]),
    "index_add_ of itself": lambda x, d: x.index_add_(0, _index(d, 0, 1), x, alpha=2),
    "index_copy_": lambda x, d: x.index_copy_(0, _index(d, 0), x[1:]),
    "index_reduce_": lambda x, d: x.index_reduce_(0, _index(d, 0), x[1:], "prod"),
    "index_put_": lambda x, d: x.index_put_((_index(d, 0),), x[1]),
    "index_put_ accumulating": lambda x, d: x.index_put_((_index(d, 0),), x[1], accumulate=True),
    "put_": lambda x, d: x.put_(_index(d, 0, 1), x[1, :2]),
    "x[idx] = row": lambda x, d: x.__setitem__(_index(d, 0), x[1]),
    "x[idx] = 0-d": lambda x, d: x.__setitem__(_index(d, 0), x[1, 0]),
    "x[row mask] = row": lambda x, d: x.__setitem__(mg.ones(2, dtype=mg.bool, device=d), x[1]),
    "x[mask] = x.view(-1)": lambda x, d: x.__setitem__(x > 0, x.view(-1)),
}

WRITTEN = {
    "a copy": lambda x, d: x.scatter_add_(0, mg.zeros(1, 3, dtype=mg.int64, device=d), x[1:].clone()),
    "a disjoint view": lambda x, d: x[0].scatter_add_(0, mg.zeros(3, dtype=mg.int64, device=d), x[1]),
    "a number": lambda x, d: x.scatter_(0, mg.zeros(1, 3, dtype=mg.int64, device=d), 2.0),
    "a strided source": lambda x, d: x.__setitem__((slice(None), _index(d, 0)), x[:, 1:2]),
    "a mask and one number": lambda x, d: x.__setitem__(x > 0, x[1, 0]),
    "a mask and one element": lambda x, d: x.__setitem__(x > 0, x[0, :1]),
    "masked_scatter_": lambda x, d: x.masked_scatter_(mg.ones(2, 3, dtype=mg.bool, device=d), x.flip(0)),
}


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
@pytest.mark.parametrize("name", list(REFUSED))
def test_a_source_in_the_written_memory_is_refused(device, dtype, name):
    x = mg.arange(6, dtype=dtype, device=device).reshape(2, 3)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        REFUSED[name](x, device)
    assert x.tolist() == [[0, 1, 2], [3, 4, 5]]  # refused before any write


@pytest.mark.parametrize("name", ["index_add_", "x[idx] = row", "scatter_add_"])
def test_on_the_tape_too(name):
    x = mg.arange(6.0).reshape(2, 3).requires_grad_()
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        REFUSED[name](x * 1, "cpu")


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("name", list(WRITTEN))
def test_other_sources_are_written(device, name):
    x = mg.arange(6.0, device=device).reshape(2, 3)
    WRITTEN[name](x, device)
