"""PyTorch's spelling of checkpointing: ``torch.utils.checkpoint``.

Code written for PyTorch imports ``checkpoint`` and ``checkpoint_sequential`` from
``torch.utils.checkpoint``; here they are the same functions as in
:mod:`minigrad_ckpt.checkpoint`, which also holds the policies, the planner and ``remat``::

    from minigrad_ckpt.utils.checkpoint import checkpoint

    y = checkpoint(block, x, use_reentrant=False)   # the segment is replayed in backward

See ``docs/checkpointing.md``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ..checkpoint import CheckpointError, checkpoint, checkpoint_sequential, noop_context_fn

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "noop_context_fn", "set_checkpoint_early_stop",
           "set_checkpoint_debug_enabled"]


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """PyTorch's context manager for ``checkpoint``'s ``early_stop`` default.  It changes nothing
    here, as the keyword does not: a replay always runs only the ops its backward needs."""
    yield


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    """PyTorch's context manager for ``checkpoint``'s ``debug`` (``None``: each call's own).  It
    changes nothing here, as the keyword does not: a replay that diverges from the forward pass
    always raises a ``CheckpointError`` naming the node and op."""
    yield
