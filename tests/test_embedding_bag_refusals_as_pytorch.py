"""``embedding_bag``'s refusals as PyTorch's.

``per_sample_weights`` of another dtype than the table is PyTorch's RuntimeError ("... to have the same
type as tensor for argument #1 'per_sample_weights' ..."), in ``F.embedding_bag`` and ``nn.EmbeddingBag``
alike. The engine multiplied the rows by them, so NumPy promoted the bags: float64 weights on a float32
table answered float64 bags. Found running PyTorch's test/nn/test_embedding.py
(``test_EmbeddingBag_per_sample_weights_failures``) against the engine."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg

F = mg.nn.functional


@pytest.mark.parametrize("table, weights", [(mg.float32, mg.float64), (mg.float64, mg.float32),
                                            (mg.float32, mg.int64)])
def test_weights_of_another_dtype_are_refused(table: object, weights: object) -> None:
    bag = mg.nn.EmbeddingBag(5, 2, mode="sum").to(table)
    ids, offsets = mg.tensor([3, 1, 1, 1, 4, 0]), mg.tensor([0, 0, 3, 3, 6])
    with pytest.raises(RuntimeError, match="to have the same type as tensor for argument #1 'per_sample_weights'"):
        bag(ids, offsets, mg.ones(6, dtype=weights))
    with pytest.raises(TypeError):  # the engine's kind of mistake, too
        F.embedding_bag(ids.view(2, 3), bag.weight, mode="sum", per_sample_weights=mg.ones(2, 3, dtype=weights))


def test_weights_of_the_tables_dtype_still_weigh_the_rows() -> None:
    table = mg.tensor(np.arange(10.0).reshape(5, 2))
    out = F.embedding_bag(mg.tensor([[1, 2], [4, 4]]), table, mode="sum",
                          per_sample_weights=mg.tensor([[0.5, 2.0], [1.0, -1.0]], dtype=mg.float64))
    assert out.dtype == mg.float64
    np.testing.assert_allclose(out.numpy(), [[0.5 * 2 + 2 * 4, 0.5 * 3 + 2 * 5], [0.0, 0.0]])


# The shape refusals of ids and offsets in torch 2.13's words (the engine had its own), found by the same
# run (test_embedding_bag_dimension_errors, _test_EmbeddingBag's illegal input combinations).
@pytest.mark.parametrize("ids, offsets, words", [
    (mg.full((2, 0, 0, 6, 6), 2), mg.zeros(2, dtype=mg.int64), "input has to be 1D or 2D Tensor, but got Tensor of "
                                                                 "dimension 5"),
    (mg.tensor([1, 2]), None, "offsets has to be a 1D Tensor but got None"),
    (mg.tensor([[1, 2]]), mg.tensor([0]), "if input is 2D, then offsets has to be None"),
    (mg.tensor([1, 2]), mg.tensor([[0]]), "offsets has to be a 1D Tensor"),
])
def test_ids_and_offsets_of_the_wrong_rank(ids: mg.Tensor, offsets: object, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        F.embedding_bag(ids, mg.zeros(4, 2), offsets)


def test_weights_of_another_shape_are_refused_first_in_pytorchs_words() -> None:
    ids, offsets = mg.tensor([3, 1, 1, 1, 4, 0]), mg.tensor([0, 0, 3, 3, 6])
    bag = mg.nn.EmbeddingBag(5, 2, mode="sum")
    for weights in (mg.ones(5), mg.ones(5, dtype=mg.float64)):  # the shape is checked before the dtype
        with pytest.raises(ValueError, match=r"If per_sample_weights \(\(5,\)\) is not None, then it must have the "
                                             r"same shape as the input \(\(6,\)\)"):
            bag(ids, offsets, weights)
    with pytest.raises(ValueError, match="same shape as the input"):
        bag(ids.view(2, 3), None, mg.ones(6))


@pytest.mark.parametrize("mode", ["mean", "max"])
def test_weights_outside_mode_sum_are_refused_in_pytorchs_words(mode: str) -> None:
    with pytest.raises(NotImplementedError, match=rf"per_sample_weights is only supported for mode='sum' "
                                                  rf"\(got mode='{mode}'\)"):
        F.embedding_bag(mg.tensor([[1, 2]]), mg.ones(5, 3), mode=mode, per_sample_weights=mg.ones(1, 2))


# mode="max" with sparse=True is PyTorch's ValueError: its max bags have no sparse backward. The engine
# answered (nn.EmbeddingBag did not even pass its sparse flag on). Found porting facebookresearch/dlrm's
# dlrm_s_pytorch.py, whose create_emb builds nn.EmbeddingBag(n, m, mode=..., sparse=True).
def test_max_mode_with_sparse_weights_is_refused_as_pytorch() -> None:
    ids, offsets = mg.tensor([1, 2, 3]), mg.tensor([0, 1])
    bag = mg.nn.EmbeddingBag(5, 2, mode="max", sparse=True)
    with pytest.raises(ValueError, match="^max mode does not support sparse weights$"):
        bag(ids, offsets)
    with pytest.raises(ValueError, match="^max mode does not support sparse weights$"):
        F.embedding_bag(ids.view(1, 3), bag.weight, mode="max", sparse=True)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_sum_and_mean_with_sparse_weights_still_answer(mode: str) -> None:
    table = mg.tensor(np.arange(10.0).reshape(5, 2))
    bag = mg.nn.EmbeddingBag.from_pretrained(table, mode=mode, sparse=True)
    out = bag(mg.tensor([1, 2, 3]), mg.tensor([0, 1]))
    np.testing.assert_allclose(out.numpy(), [[2.0, 3.0], [10.0, 12.0]] if mode == "sum" else [[2.0, 3.0], [5.0, 6.0]])
