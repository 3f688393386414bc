"""Datasets, samplers and the DataLoader, with PyTorch's names and defaults.

    from minigrad_ckpt.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(mg.randn(100, 3), mg.arange(100))
    for x, y in DataLoader(ds, batch_size=32, shuffle=True):
        ...

Shuffling draws from the engine's generator, so ``mg.manual_seed`` fixes the
order; a loader's position is state (``state_dict``/``load_state_dict``) that
an :class:`~minigrad_ckpt.Executor` can register, so a snapshot taken
mid-epoch resumes with exactly the batches that were still to come.
"""

from .dataloader import DataLoader, default_collate, default_convert
from .dataset import (
                      ChainDataset,
                      ConcatDataset,
                      Dataset,
                      IterableDataset,
                      StackDataset,
                      Subset,
                      TensorDataset,
                      random_split,
)
from .distributed import DistributedSampler
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler
from .workers import WorkerInfo, get_worker_info

__all__ = ["Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split", "Sampler",
           "SequentialSampler", "RandomSampler", "BatchSampler", "DistributedSampler", "DataLoader", "default_collate",
           "default_convert", "SubsetRandomSampler", "WeightedRandomSampler", "get_worker_info", "WorkerInfo",
           "IterableDataset", "ChainDataset", "StackDataset"]
