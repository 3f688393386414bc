"""Moving a tensor between devices, differentiably.

``ToDevice`` is the one op whose output lives somewhere else than its input,
so it is run by :func:`~minigrad_ckpt.tape.apply_move` (``apply`` with the
output's device given) rather than ``apply``; it is recorded like any other
op.  The gradient flows back by moving it to the source device.
"""

from __future__ import annotations

from typing import Any

from .. import backend
from .base import Op


class ToDevice(Op):
    """Copy to ``device`` (a device string such as ``"cuda:0"`` or ``"cpu"``)."""

    device: str
    source: str

    save_inputs = False
    #: backward moves ``g`` as it is, complex numbers too (a copy's gradient); the engine's
    #: ``conj`` around a holomorphic backward would run on the output's device with the
    #: moved gradient already on the input's
    holomorphic = False

    def forward(self, xp, x):
        return _transfer(x, backend.get_device(self.device))

    def backward(self, xp, g, out, x):
        return xp.to_device(g, self.source)

    def jvp(self, xp, tangents, out, x):
        return xp.to_device(tangents[0], self.device)

    def reference(self, np, x):
        return x.copy()


def _transfer(a: Any, dev: Any) -> Any:
    host = backend.to_host(a)
    return dev.xp.asarray(host) if dev.xp.name != "numpy" else host.copy()
