"""PyTorch's ``torch.utils.data._utils`` import path and ``default_collate``'s ``collate_fn_map`` extension.

Programs import ``default_collate`` from ``torch.utils.data._utils.collate`` (SlowFast's loader, MotionGPT's
collate_fn) and ``get_worker_info`` from ``torch.utils.data.dataloader`` (in its ``__all__``); PyTorch's
``default_collate`` docstring teaches extending it by adding an entry to ``default_collate_fn_map``, and
``collate(batch, collate_fn_map=...)`` batches with a map of one's own.  The expected answers are torch 2.13's.
"""

import dataclasses

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, default_collate


@dataclasses.dataclass
class Box:
    v: int


def merge_boxes(batch, *, collate_fn_map=None):
    return Box(sum(b.v for b in batch))


def test_private_import_paths_name_the_public_functions():
    from minigrad_ckpt.utils.data import get_worker_info as public
    from minigrad_ckpt.utils.data._utils.collate import default_collate as private_collate
    from minigrad_ckpt.utils.data._utils.collate import default_convert as private_convert
    from minigrad_ckpt.utils.data._utils.worker import WorkerInfo, get_worker_info
    from minigrad_ckpt.utils.data.dataloader import get_worker_info as from_dataloader

    assert private_collate is default_collate and from_dataloader is public and get_worker_info is public
    assert private_convert is mg.utils.data.default_convert and WorkerInfo is mg.utils.data.WorkerInfo


def test_an_entry_in_default_collate_fn_map_teaches_default_collate_a_type():
    from minigrad_ckpt.utils.data._utils.collate import default_collate_fn_map

    batch = [{"x": Box(1), "y": (1, "a")}, {"x": Box(2), "y": (2, "b")}]
    with pytest.raises(TypeError):
        default_collate(batch)
    default_collate_fn_map[Box] = merge_boxes
    try:
        out = default_collate(batch)
        # torch 2.13: {'x': Box(v=3), 'y': [tensor([1, 2]), ('a', 'b')]}
        assert out["x"] == Box(3) and out["y"][0].tolist() == [1, 2] and out["y"][1] == ("a", "b")
        loader = DataLoader([Box(i) for i in range(5)], batch_size=2)
        assert [b.v for b in loader] == [1, 5, 4]
    finally:
        del default_collate_fn_map[Box]


def test_collate_with_a_map_of_ones_own():
    from minigrad_ckpt.utils.data._utils.collate import collate, collate_tensor_fn

    assert collate([1, 2], collate_fn_map={int: lambda b, collate_fn_map=None: sum(b)}) == 3  # torch: 3
    # a leaf no entry covers is refused (torch 2.13: TypeError), containers are taken apart as default_collate's
    with pytest.raises(TypeError):
        collate([(1, 2.0)], collate_fn_map={int: lambda b, collate_fn_map=None: "i"})
    out = collate([{"a": mg.zeros(2)}] * 2, collate_fn_map={mg.Tensor: collate_tensor_fn})
    assert out["a"].shape == (2, 2)
    # an entry for a built-in kind replaces the default rule for it, nested too
    fn_map = {int: lambda b, collate_fn_map=None: list(b), str: lambda b, collate_fn_map=None: "".join(b)}
    assert collate([(1, "a"), (2, "b")], collate_fn_map=fn_map) == [[1, 2], "ab"]
