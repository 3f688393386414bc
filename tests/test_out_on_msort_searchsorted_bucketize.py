"""``out=`` on ``msort``, ``searchsorted``, ``bucketize`` and ``nonzero``, as PyTorch's, and ``searchsorted``'s
``sorter`` refused unless it is int64.

PyTorch's test_sort_and_select writes ``torch.msort(t, out=o)``; here ``out=`` was a ``TypeError``.
Each result's dtype is the only one ``out`` may have (PyTorch's RuntimeError otherwise).  A float
``sorter`` was cast by NumPy (1.7 read as index 1), an int32 one taken; PyTorch refuses both.
"""

import pytest

import minigrad_ckpt as mg


def test_msort_writes_into_out_of_its_dtype_only():
    x = mg.tensor([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]])
    out = mg.empty(0)
    assert mg.msort(x, out=out) is out and out.tolist() == [[1.0, 0.0], [2.0, 1.0], [3.0, 2.0]]
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        mg.msort(x, out=mg.empty(0, dtype=mg.float64))


def test_searchsorted_and_bucketize_write_their_indices_into_out():
    seq, v = mg.tensor([1.0, 3.0, 5.0]), mg.tensor([0.0, 3.0, 6.0])
    out = mg.empty(0, dtype=mg.int64)
    assert mg.searchsorted(seq, v, out=out) is out and out.tolist() == [0, 1, 3]
    out32 = mg.empty(0, dtype=mg.int32)
    assert mg.bucketize(v, seq, right=True, out_int32=True, out=out32) is out32 and out32.tolist() == [0, 2, 3]
    with pytest.raises(RuntimeError):
        mg.searchsorted(seq, v, out=mg.empty(0))  # float: neither int64 nor int32


@pytest.mark.parametrize("sorter", [mg.tensor([1.0, 0.0]), mg.tensor([1, 0], dtype=mg.int32)])
def test_a_sorter_that_is_not_int64_is_refused(sorter):
    with pytest.raises(RuntimeError, match="sorter must be a tensor of long dtype") as caught:
        mg.searchsorted(mg.tensor([3.0, 1.0]), mg.tensor([2.0]), sorter=sorter)
    assert isinstance(caught.value, IndexError)
    assert mg.searchsorted(mg.tensor([3.0, 1.0]), mg.tensor([2.0]), sorter=mg.tensor([1, 0])).tolist() == [1]


def test_nonzero_with_out_is_pytorchs_meaning_written_into_out():
    # torch.nonzero(t, out=o), in PyTorch's test_nonzero; out= is PyTorch's spelling, so its (count, ndim) answer
    t = mg.tensor([[0, 1, 0], [2, 0, 3]])
    out = mg.empty([], dtype=mg.int64)
    assert mg.nonzero(t, out=out) is out and out.tolist() == [[0, 1], [1, 0], [1, 2]]
    with pytest.raises(RuntimeError, match="nonzero: Expected out tensor to have scalar type Long but got scalar "
                                           "typeFloat"):  # (torch 2.13's words, sic)
        mg.nonzero(t, out=mg.empty([], dtype=mg.float32))
    with pytest.raises(RuntimeError, match="as_tuple"):
        mg.nonzero(t, as_tuple=True, out=mg.empty([], dtype=mg.int64))
    assert len(mg.nonzero(t)) == 2  # without out=, NumPy's tuple as before
