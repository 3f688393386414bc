"""PyTorch's ``torch.jit.annotations``: the typing names TorchScript code imports from there
(timm's DenseNet: ``from torch.jit.annotations import List``). They are :mod:`typing`'s, and
``BroadcastingList2[int]`` (an int or a pair, in TorchScript's signatures) reads as a list of them."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: UP035  (PyTorch's names, re-exported)

__all__ = ["Any", "BroadcastingList1", "BroadcastingList2", "BroadcastingList3", "Dict", "List", "Optional",
           "Tuple", "Union"]


class _BroadcastingList:
    """``BroadcastingListN[T]``: ``List[T]`` for Python (TorchScript also takes one T for N of them)."""

    def __getitem__(self, item: Any) -> Any:
        return List[item]  # noqa: UP006


BroadcastingList1 = _BroadcastingList()
BroadcastingList2 = _BroadcastingList()
BroadcastingList3 = _BroadcastingList()
