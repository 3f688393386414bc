"""A ``Subset``'s indices, a ``SubsetRandomSampler``'s indices and a ``WeightedRandomSampler``'s
float64 NumPy weights are the caller's own objects, as PyTorch keeps them: updating them in place
-- an active-learning loop growing its labelled pool, a replay buffer updating its priorities --
changes what later epochs read and draw.  They were copied at construction, so such a loop went on
silently with the first pool (the first priorities).  Expected values are torch 2.13's."""

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict  # noqa: F401 (registers the strict stand-in devices)
from minigrad_ckpt.utils.data import DataLoader, Subset, SubsetRandomSampler, TensorDataset, WeightedRandomSampler


@pytest.mark.parametrize("device, dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict-f32", "float32")])
def test_a_subset_grows_with_its_index_list(device, dtype):
    labelled = [0, 1]
    pool = Subset(TensorDataset(mg.arange(10, dtype=dtype, device=device) * 2), labelled)
    loader = DataLoader(pool, batch_size=2)
    labelled.append(5)
    # torch: len(pool) == 3, len(loader) == 2, batches [0, 2], [10]
    assert len(pool) == 3 and len(loader) == 2 and pool.indices is labelled
    batches = [x.cpu().tolist() for (x,) in loader]
    assert batches == [[0.0, 2.0], [10.0]]
    assert [str(x.dtype) for (x,) in loader] == [dtype] * 2


def test_a_subset_of_a_plain_dataset_grows_with_its_index_list():
    labelled = [4, 1]
    pool = Subset(list(range(10, 20)), labelled)
    labelled[0] = 9
    labelled.append(0)
    assert [pool[i] for i in range(len(pool))] == [19, 11, 10]
    assert [b.tolist() for b in DataLoader(pool, batch_size=2)] == [[19, 11], [10]]


def test_a_subsets_indices_of_other_kinds_are_still_ints():
    assert Subset(list(range(5)), [np.int64(1), mg.tensor(2), -1]).indices == [1, 2, -1]
    assert Subset(list(range(5)), np.array([3, 4])).indices == [3, 4]


@pytest.mark.parametrize("make", [list, np.array, mg.tensor], ids=["list", "numpy", "tensor"])
def test_a_subset_random_sampler_draws_from_its_sequence_as_it_is_now(make):
    labelled = make([0, 1])
    sampler = SubsetRandomSampler(labelled)
    labelled[0] = 7
    # torch: sorted(sampler) == [1, 7] (each index as the sequence holds it)
    assert sorted(int(i) for i in sampler) == [1, 7] and len(sampler) == 2
    assert all(type(i) is type(labelled[0]) for i in sampler)


def test_a_subset_random_sampler_over_a_growing_pool():
    labelled = [3]
    loader = DataLoader(list(range(10)), sampler=SubsetRandomSampler(labelled), batch_size=4)
    assert [b.tolist() for b in loader] == [[3]]
    labelled.extend([5, 8])
    assert len(loader) == 1 and sorted(x for b in loader for x in b.tolist()) == [3, 5, 8]


def test_a_subset_random_sampler_still_takes_a_generator():
    assert sorted(SubsetRandomSampler(i for i in (4, 2))) == [2, 4]


def test_float64_numpy_weights_are_shared():
    priorities = np.array([1.0, 0.0, 0.0])
    sampler = WeightedRandomSampler(priorities, 20)
    assert set(sampler) == {0}
    priorities[:] = [0.0, 0.0, 1.0]  # torch: later draws follow (torch.as_tensor shares the array)
    assert set(sampler) == {2}
    priorities[:] = [0.0, -1.0, 1.0]
    with pytest.raises(RuntimeError, match="probability entry < 0"):  # checked at each draw, as torch's
        list(sampler)


@pytest.mark.parametrize("weights", [np.array([1.0, 0.0], dtype=np.float32), [1.0, 0.0], np.array([1, 0])],
                         ids=["float32", "list", "int64"])
def test_other_weights_are_copied(weights):
    sampler = WeightedRandomSampler(weights, 10)
    weights[0], weights[1] = 0, 1  # torch: a converted copy; the draws stay index 0
    assert set(sampler) == {0} and sampler.weights.dtype == mg.float64
