"""``F.one_hot`` and ``F.embedding`` refuse what PyTorch 2.13 refuses, with its words.

``one_hot``: only ``num_classes=-1`` means "count the classes from the values"; any other count below 1
is a count every value is out of (PyTorch: "Class values must be smaller than num_classes." for
``num_classes=-2`` of ``[1, 2]``, where the engine read every negative count as -1 and answered a (2, 3)
one-hot), an empty tensor needs a positive count (``num_classes=0``: "Can not infer total number of
classes from empty tensor."), and the ids must be int64 (PyTorch's LongTensor; int32 and uint8 ids were
taken).  ``embedding``: the weight is a 2-D table (a 1-D weight answered scalars, a 3-D one matrices,
where PyTorch says "'weight' must be 2-D")."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

F = mg.nn.functional
DEVICES = ["cpu", "strict", "strict-f32"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("num_classes", [-2, -5, 0])
def test_one_hot_count_below_one_other_than_minus_one_is_refused(device, num_classes):
    ids = mg.tensor([1, 2], device=device)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(ids, num_classes)
    with pytest.raises(RuntimeError, match="non-negative"):  # a negative id is named first, as PyTorch's
        F.one_hot(mg.tensor([-1, 2], device=device), num_classes)


@pytest.mark.parametrize("device", DEVICES)
def test_one_hot_of_an_empty_tensor_needs_a_positive_count(device):
    empty = mg.zeros(0, dtype="int64", device=device)
    for num_classes in (-1, 0, -2):
        with pytest.raises(RuntimeError, match="infer the number of classes"):
            F.one_hot(empty, num_classes)
    assert F.one_hot(empty, 3).shape == (0, 3)


@pytest.mark.parametrize("device", DEVICES)
def test_one_hot_still_counts_and_checks_as_before(device):
    ids = mg.tensor([[0, 2], [1, 1]], device=device)
    np.testing.assert_array_equal(F.one_hot(ids).cpu().numpy(), np.eye(3, dtype=np.int64)[[[0, 2], [1, 1]]])
    assert F.one_hot(ids, 4).shape == (2, 2, 4) and F.one_hot(ids, 4).dtype == "int64"
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(ids, 2)


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int16"])
def test_one_hot_takes_int64_ids_only(dtype):
    with pytest.raises(RuntimeError, match="only applicable to index tensor of type LongTensor"):
        F.one_hot(mg.tensor([1, 2], dtype=dtype), 3)
    with pytest.raises(TypeError):  # floats as before (a TypeError and PyTorch's RuntimeError both)
        F.one_hot(mg.tensor([1.0, 2.0]), 3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(7,), (7, 2, 3), ()])
def test_embedding_weight_must_be_a_table(device, shape):
    w = mg.ones(*shape, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(mg.tensor([1, 2], device=device), w)


@pytest.mark.parametrize("device", DEVICES)
def test_embedding_of_a_table_still_looks_rows_up(device):
    dtype = "float32" if device == "strict-f32" else "float64"
    w = mg.tensor(np.arange(12.0).reshape(4, 3), dtype=dtype, device=device, requires_grad=True)
    out = F.embedding(mg.tensor([[3, 0], [3, 3]], device=device), w, padding_idx=0)
    np.testing.assert_array_equal(out.cpu().numpy(), np.arange(12.0).reshape(4, 3)[[[3, 0], [3, 3]]])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.cpu().numpy(), [[0, 0, 0], [0, 0, 0], [0, 0, 0], [3, 3, 3]])


@pytest.mark.parametrize("padding_idx", [7, -8])
def test_a_padding_idx_out_of_range_is_pytorchs_assertion_error(padding_idx):
    # (torch 2.13's F.embedding, nn.Embedding and from_pretrained: AssertionError "Padding_idx must be
    # within num_embeddings"; nn.EmbeddingBag's says "padding_idx", lower case; the engine's ValueError,
    # which it still is)
    calls = [(lambda: F.embedding(mg.tensor([1, 2]), mg.ones(7, 3), padding_idx=padding_idx), "Padding_idx"),
             (lambda: mg.nn.Embedding(7, 3, padding_idx=padding_idx), "Padding_idx"),
             (lambda: mg.nn.EmbeddingBag(7, 3, padding_idx=padding_idx), "padding_idx"),
             (lambda: mg.nn.EmbeddingBag.from_pretrained(mg.ones(7, 3), padding_idx=padding_idx), "padding_idx"),
             (lambda: mg.nn.Embedding.from_pretrained(mg.ones(7, 3), padding_idx=padding_idx), "Padding_idx")]
    for call, name in calls:
        with pytest.raises(AssertionError, match=f"\\({name} must be within num_embeddings\\)") as caught:
            call()
        assert isinstance(caught.value, ValueError)
