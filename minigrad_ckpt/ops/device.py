"""Moving a tensor between devices, differentiably.

``ToDevice`` is the one op whose output lives somewhere else than its input,
so it is built by hand instead of through :func:`~minigrad_ckpt.tape.apply`:
the gradient flows back by moving it to the source device.
"""

from __future__ import annotations

from typing import Any

from .. import backend
from .base import Op


class ToDevice(Op):
    """Copy to ``device`` (a device string such as ``"cuda:0"`` or ``"cpu"``)."""

    save_inputs = False

    def forward(self, xp, x):
        return _transfer(x, backend.get_device(self.device))

    def backward(self, xp, g, out, x):
        return xp.to_device(g, self.source)

    def reference(self, np, x):
        return x.copy()

    @staticmethod
    def move(x: Any, dev: Any) -> Any:
        from ..grad_mode import state
        from ..tape import Node
        from ..tensor import Tensor

        op = ToDevice(device=str(dev), source=str(x.device))
        arr = op.forward(x.device.xp, x.data)
        t = Tensor._wrap(arr, None, dev)
        if x.requires_grad and state.enabled:
            edge = x._node if x._node is not None else x
            t._node = Node(op, (edge,), (None, None), (), dev.xp, arr.shape, arr.dtype)
            t._rg = True
        return t


def _transfer(a: Any, dev: Any) -> Any:
    host = backend.to_host(a)
    return dev.xp.asarray(host) if dev.xp.name != "numpy" else host.copy()
