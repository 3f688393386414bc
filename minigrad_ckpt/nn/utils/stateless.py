"""``mg.nn.utils.stateless``: PyTorch's deprecated home of ``functional_call`` (before ``torch.func``), kept
so that programs written against PyTorch 1.x find it: the same call as :func:`minigrad_ckpt.func.functional_call`,
with PyTorch's ``FutureWarning``."""

from __future__ import annotations

import warnings
from typing import Any

from ...func.module_call import functional_call as _functional_call
from ...user_frame import stacklevel_outside_the_engine

__all__ = ["functional_call"]


def functional_call(module: Any, parameters_and_buffers: Any, args: Any = None, kwargs: Any = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """``module`` run with the given tensors in place of its own (see :func:`mg.func.functional_call`)."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed "
                  "in a future version of PyTorch. Please use `torch.func.functional_call` instead which is a "
                  "drop-in replacement. (Here: mg.func.functional_call.)", FutureWarning,
                  stacklevel=stacklevel_outside_the_engine())
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
