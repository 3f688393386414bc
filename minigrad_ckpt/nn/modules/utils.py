"""PyTorch's ``torch.nn.modules.utils``: the small helpers library code imports from there.

Custom layers written for PyTorch normalise their size arguments with ``_pair`` / ``_single`` /
``_triple`` (``from torch.nn.modules.utils import _pair``: torchvision's ops, many conv variants),
and loading a checkpoint saved from ``DistributedDataParallel`` into a plain model strips its
``"module."`` prefix with :func:`consume_prefix_in_state_dict_if_present`.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Callable
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple[Any, ...]]:
    """A function turning ``x`` into an ``n``-tuple: an iterable as its items, anything else repeated."""

    def parse(x: Any) -> tuple[Any, ...]:
        return tuple(x) if isinstance(x, collections.abc.Iterable) else (x,) * n

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple[Any, ...], n: int) -> tuple[Any, ...]:
    """``t`` reversed with each item repeated ``n`` times: a conv's ``padding`` in ``F.pad``'s order
    (last dim first, each side once)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def consume_prefix_in_state_dict_if_present(state_dict: dict[str, Any], prefix: str) -> None:
    """Strip ``prefix`` from the keys that start with it, in place -- and from the module paths of the
    dict's ``_metadata``, so each module's format version still reaches it (DDP's ``"module."``)."""
    for key in [k for k in state_dict if k.startswith(prefix)]:
        state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    bare = prefix.replace(".", "")  # the wrapper's own entry: "module" for "module."
    for key in [k for k in metadata if k and (k == bare or k.startswith(prefix))]:
        metadata[key[len(prefix):] if key.startswith(prefix) else ""] = metadata.pop(key)
