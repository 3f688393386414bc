"""Padding layers: ``ZeroPad1d``/``2d``/``3d``, ``ConstantPad*``, ``ReflectionPad*``, ``ReplicationPad*``,
``CircularPad*`` -- each is ``F.pad`` with its mode, PyTorch's ``padding`` (an int for every side,
or ``(left, right[, top, bottom[, front, back]])``)."""

from __future__ import annotations

from typing import Any, ClassVar

from ..functional.arguments import number
from . import functional as F
from .function_layer import FunctionLayer
from .functional.padding import unsupported_padding_size

__all__ = [
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
    "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d",
    "CircularPad1d", "CircularPad2d", "CircularPad3d",
]


class _Pad(FunctionLayer):
    """``F.pad(x, padding, mode, value)`` over the last ``spatial`` axes of (N, C, *spatial) or (C, *spatial)."""

    fn = staticmethod(F.pad)
    options = ("pad", "mode", "value")
    shown = ("padding",)
    spatial: ClassVar[int] = 1
    pad_mode: ClassVar[str] = "constant"

    def __init__(self, padding: Any, value: float | None = None) -> None:
        n = 2 * self.spatial
        padding = (int(padding),) * n if isinstance(padding, int) else tuple(int(p) for p in padding)
        if len(padding) != n:
            raise ValueError(f"{type(self).__name__}: padding must be an int or {n} ints, got {padding}")
        super().__init__(padding=padding, mode=self.pad_mode, value=value)

    @property
    def pad(self) -> tuple:
        """``F.pad``'s name for PyTorch's attribute ``padding``, read at each call: a program that sets
        ``layer.padding`` after construction pads by the new amounts, as in PyTorch."""
        return self.padding

    def extra_repr(self) -> str:  # PyTorch's: the padding alone
        return f"{self.padding}"

    def forward(self, input: Any) -> Any:
        x = input  # PyTorch's argument name
        if self.pad_mode != "constant" and getattr(x, "ndim", None) not in (self.spatial + 1, self.spatial + 2):
            ours = f"{type(self).__name__}: expected {self.spatial + 1}D or {self.spatial + 2}D input (got " \
                   f"{getattr(x, 'ndim', None)}D input)"
            if self.pad_mode == "circular":  # (PyTorch's circular layers check the rank themselves, in these words)
                raise ValueError(ours)
            # PyTorch's reflection and replication layers leave it to F.pad: its NotImplementedError and words
            raise unsupported_padding_size(2 * self.spatial, getattr(x, "ndim", None), f"\n({ours})")
        return super().forward(x)


class _ConstantPad(_Pad):
    def __init__(self, padding: Any, value: float) -> None:
        # kept as given (PyTorch's attribute and repr: ``ConstantPad1d(1, 2)`` shows ``value=2``); a tensor
        # or NumPy number is read as its number
        super().__init__(padding, number(type(self).__name__, "value", value, "float"))

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class _ZeroPad(_Pad):
    """A ``ConstantPad`` of 0.0 (each ``ZeroPad{n}d`` is a subclass of ``ConstantPad{n}d``, as PyTorch's)."""

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:  # PyTorch's: the padding alone
        return f"{self.padding}"


def _layer(name: str, base: type | tuple[type, ...], spatial: int, mode: str, doc: str) -> type:
    bases = base if isinstance(base, tuple) else (base,)
    return type(name, bases, {"spatial": spatial, "pad_mode": mode, "__doc__": doc, "__module__": __name__})


ConstantPad1d = _layer("ConstantPad1d", _ConstantPad, 1, "constant", "Pads the last axis with ``value``.")
ConstantPad2d = _layer("ConstantPad2d", _ConstantPad, 2, "constant", "Pads the last two axes with ``value``.")
ConstantPad3d = _layer("ConstantPad3d", _ConstantPad, 3, "constant", "Pads the last three axes with ``value``.")
ZeroPad1d = _layer("ZeroPad1d", (_ZeroPad, ConstantPad1d), 1, "constant", "Pads the last axis with zeros.")
ZeroPad2d = _layer("ZeroPad2d", (_ZeroPad, ConstantPad2d), 2, "constant", "Pads the last two axes with zeros.")
ZeroPad3d = _layer("ZeroPad3d", (_ZeroPad, ConstantPad3d), 3, "constant", "Pads the last three axes with zeros.")
ReflectionPad1d = _layer("ReflectionPad1d", _Pad, 1, "reflect", "Mirrors the last axis (edges not repeated).")
ReflectionPad2d = _layer("ReflectionPad2d", _Pad, 2, "reflect", "Mirrors the last two axes (edges not repeated).")
ReflectionPad3d = _layer("ReflectionPad3d", _Pad, 3, "reflect", "Mirrors the last three axes (edges not repeated).")
ReplicationPad1d = _layer("ReplicationPad1d", _Pad, 1, "replicate", "Repeats the edge of the last axis.")
ReplicationPad2d = _layer("ReplicationPad2d", _Pad, 2, "replicate", "Repeats the edges of the last two axes.")
ReplicationPad3d = _layer("ReplicationPad3d", _Pad, 3, "replicate", "Repeats the edges of the last three axes.")
CircularPad1d = _layer("CircularPad1d", _Pad, 1, "circular", "Wraps the last axis around.")
CircularPad2d = _layer("CircularPad2d", _Pad, 2, "circular", "Wraps the last two axes around.")
CircularPad3d = _layer("CircularPad3d", _Pad, 3, "circular", "Wraps the last three axes around.")
