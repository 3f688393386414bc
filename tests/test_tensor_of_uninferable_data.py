"""``mg.tensor`` of data that is not numbers -- ``None``, a dict, a set, a generator, an arbitrary
object, at the top or inside a list -- is PyTorch's ``RuntimeError`` naming the offending leaf's
type (torch 2.13: "Could not infer dtype of NoneType" for ``[1, None]``), and still a
``TypeError``.  The engine raised only a TypeError, naming the outer container and calling it
"data of mixed types" (``mg.tensor(None)``: "cannot make a tensor from NoneType data of mixed
types"), which ``except RuntimeError`` missed and which pointed at the wrong thing.  Found running
PyTorch's tensor-construction tests against the engine."""
from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def _generator():
    return (i for i in range(2))


@pytest.mark.parametrize("make, leaf", [
    (lambda: None, "NoneType"),
    (lambda: [1, None], "NoneType"),
    (lambda: [[1, 2], (3, None)], "NoneType"),
    (lambda: [1, 2j, None], "NoneType"),
    (lambda: {"a": 1}, "dict"),
    (lambda: [np.float32(1), {}], "dict"),
    (lambda: object(), "object"),
    (lambda: [object()], "object"),
    (lambda: {1, 2}, "set"),
    (_generator, "generator"),
])
@pytest.mark.parametrize("spelling", ["tensor", "as_tensor", "new_tensor"])
def test_data_without_a_dtype_is_a_runtime_error_naming_the_leaf(make, leaf, spelling):
    create = {"tensor": mg.tensor, "as_tensor": mg.as_tensor, "new_tensor": mg.ones(1).new_tensor}[spelling]
    with pytest.raises(RuntimeError, match=f"^Could not infer dtype of {leaf}") as info:
        create(make())
    assert isinstance(info.value, TypeError)


def test_an_object_array_is_refused_in_pytorchs_words():
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.object_") as info:
        mg.tensor(np.array([1, None], dtype=object))
    assert isinstance(info.value, RuntimeError)


def test_numbers_of_every_kind_still_make_tensors():
    assert mg.tensor([1, 2.5, True]).tolist() == [1.0, 2.5, 1.0]
    assert mg.tensor([np.float32(1), np.array(2.0)]).dtype == mg.float64
    assert mg.tensor([[1, 2], (3, 4)]).tolist() == [[1, 2], [3, 4]]
