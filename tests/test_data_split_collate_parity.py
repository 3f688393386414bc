"""``random_split``'s lengths, ``TensorDataset``'s refusals and ``default_collate`` of NumPy arrays
mixed with other samples, against torch 2.13's answers recorded by
``tests/data/make_torch_data_split_collate.py`` (torch is not imported here).

PyTorch takes lengths whose sum is close to 1 and at most 1 as fractions, whatever their type
(``random_split(range(7), [1, 0])`` is ``[7, 0]``, with a warning for the empty subset;
``[0.5, 0.5000000001]`` is refused); a batch whose first sample is an array is
``torch.as_tensor`` of every sample, then stacked (``[np.array([1.0]), [2.0]]`` is float64)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.utils.data as data

DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(DATA))
from data_split_collate_cases import COLLATE, collate, split, tensor_dataset  # noqa: E402

TORCH = json.loads((DATA / "torch_data_split_collate.json").read_text())


@pytest.mark.parametrize("n, lengths, expected", TORCH["splits"], ids=lambda v: str(v))
def test_random_split_lengths_and_warnings_are_pytorchs(n, lengths, expected):
    assert split(data, n, lengths) == expected


@pytest.mark.parametrize("name", sorted(COLLATE))
def test_a_batch_of_an_array_and_other_samples_collates_as_pytorch(name):
    assert collate(data, COLLATE[name]()) == TORCH["collate"][name]


@pytest.mark.parametrize("case", ["none", "0d"])
def test_tensor_dataset_refusals_are_pytorchs_index_error(case):
    assert tensor_dataset(data, mg, case) == TORCH["tensor_dataset"][case]


def test_the_split_of_a_fraction_list_is_a_partition_on_the_strict_device():
    import minigrad_ckpt.testing.strict  # noqa: F401

    ds = data.TensorDataset(mg.arange(7, device="strict"))
    with pytest.warns(UserWarning, match="index 1 is 0"):
        parts = data.random_split(ds, [1, 0])
    assert [len(p) for p in parts] == [7, 0]
    assert sorted(int(ds[i][0].item()) for i in parts[0].indices) == list(range(7))


@pytest.mark.parametrize("generator", [3, object()], ids=["int", "foreign-generator"])
def test_random_split_refuses_a_generator_that_is_not_one_as_the_samplers_do(generator):
    # torch 2.13: TypeError (randperm's invalid combination of arguments); here it was an
    # AttributeError ('int' object has no attribute 'next_key') from inside the draw
    with pytest.raises(TypeError, match="random_split: generator must be a minigrad_ckpt.random.Generator"):
        data.random_split(range(4), [2, 2], generator=generator)


def test_random_split_with_pytorchs_seeded_generator_spelling_is_reproducible():
    first = data.random_split(range(10), [0.8, 0.2], generator=mg.Generator().manual_seed(42))
    again = data.random_split(range(10), [0.8, 0.2], generator=mg.Generator().manual_seed(42))
    assert [p.indices for p in first] == [p.indices for p in again]
    assert sorted(first[0].indices + first[1].indices) == list(range(10))
