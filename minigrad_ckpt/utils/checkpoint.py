"""PyTorch's spelling of checkpointing: ``torch.utils.checkpoint``.

Code written for PyTorch imports ``checkpoint`` and ``checkpoint_sequential`` from
``torch.utils.checkpoint``; here they are the same functions as in
:mod:`minigrad_ckpt.checkpoint`, which also holds the policies, the planner and ``remat``::

    from minigrad_ckpt.utils.checkpoint import checkpoint

    y = checkpoint(block, x, use_reentrant=False)   # the segment is replayed in backward

See ``docs/checkpointing.md``.
"""

from __future__ import annotations

from ..checkpoint import CheckpointError, checkpoint, checkpoint_sequential, noop_context_fn

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "noop_context_fn"]
