"""``mg.autograd.forward_ad``: PyTorch's dual-number API for forward mode, on the engine's levels.

    import minigrad_ckpt.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        x = fwAD.make_dual(primal, tangent)     # primal + tangent * eps
        y = mg.sin(x) * x                        # the ops push the tangent (each op's jvp rule)
        value, jvp = fwAD.unpack_dual(y)         # f(primal), J @ tangent

A dual level is one of :mod:`minigrad_ckpt.func.forward`'s levels -- the ones
``mg.func.jvp`` opens for the length of a call -- held open between
:func:`enter_dual_level` and :func:`exit_dual_level`.  When it closes, every
tangent at it is forgotten: ``unpack_dual`` then gives ``tangent=None``.

Differences from PyTorch: levels nest (PyTorch refuses a second one); the
level number is the engine's, not 0; a tangent of another floating dtype is
cast to the primal's.  In-place ops carry tangents as in ``mg.func.jvp``
(``x.mul_(2)``, ``y[0] = dual``; the tensor ``make_dual`` was given takes the
new values and stays without a tangent, as PyTorch's base of a dual view), and
a write through a view of a dual updates the base's tangent (see
:mod:`minigrad_ckpt.func.inplace` for what is refused).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any, NamedTuple

from ..func import forward as _forward
from ..grad_mode import forward_mode as _modes
from ..tensor import Tensor

__all__ = ["dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "UnpackedDualTensor"]


class _Open(threading.local):
    def __init__(self) -> None:
        self.levels: list[int] = []  # the dual levels this thread opened, innermost last


_open = _Open()


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the primal (a view without the tangent) and the tangent."""

    primal: Tensor
    tangent: Tensor | None


def enter_dual_level() -> int:
    """Open a dual level and return it (``make_dual``'s and ``unpack_dual``'s default from now on)."""
    level = _forward.enter_level()
    _open.levels.append(level)
    return level


def exit_dual_level(*, level: int | None = None) -> None:
    """Close ``level`` (the innermost open one by default): its tangents are gone."""
    if not _open.levels:
        raise RuntimeError("exit_dual_level: no dual level is open (enter_dual_level() first)")
    level = _open.levels[-1] if level is None else level
    if level != _open.levels[-1]:
        raise RuntimeError(f"exit_dual_level: level {level} is not the innermost open dual level "
                           f"({_open.levels[-1]}); close the levels in the reverse order of opening")
    _open.levels.pop()
    _forward.exit_level(level)


@contextlib.contextmanager
def as_dual_level(level: int) -> Iterator[int]:
    """Within the block, an open forward-mode ``level`` (an ``mg.func.jvp`` call's) is the innermost
    dual level: ``make_dual`` and ``unpack_dual`` without ``level=`` use it. PyTorch's gradcheck checks
    forward mode at a dual level, so a function that reads its inputs' tangents (``unpack_dual``) sees
    them there; the engine's check runs the function inside ``mg.func.jvp`` and names its level so."""
    _open.levels.append(level)
    try:
        yield level
    finally:
        _open.levels.remove(level)


class dual_level:  # noqa: N801 (PyTorch's name)
    """``with dual_level() as level:`` -- a dual level for the block (PyTorch's context manager)."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()


def _level(level: int | None, what: str) -> int:
    if level is None:
        if not _open.levels:
            raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure "
                               "to enter_dual_level() first.")
        return _open.levels[-1]
    if level not in _modes.levels:
        raise RuntimeError(f"Invalid level given to {what}")
    return level


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` carrying ``tangent`` at ``level``: ops on it push the tangent along.

    ``tensor`` and ``tangent`` are floating-point (or complex) and of one shape; ``tangent`` carries
    no tangent of its own at ``level`` (one at an outer level is forward over forward).  If ``tensor``
    requires grad, the dual is on the tape (a gradient of anything computed from it, the tangent
    included, reaches ``tensor``).
    """
    level = _level(level, "_make_dual")
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(t, Tensor):
            raise TypeError(f"make_dual: the {name} must be a Tensor, got {type(t).__name__}")
        if t.dtype.kind not in "fc":
            raise ValueError(f"Expected {name} to be floating point or complex, but got: {t.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if tensor._tangents and level in tensor._tangents:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward gradient at the "
                           f"same level {level} is not supported.")
    if tangent._tangents and level in tangent._tangents:  # its own tangent would be pushed at its level
        raise RuntimeError(f"Setting a forward grad that itself has a forward gradient at the same level {level} is "
                           f"not supported.")
    if tangent.dtype.kind == "c" and tensor.dtype.kind != "c":  # the cast below would drop a part
        raise TypeError(f"make_dual: the tangent is complex ({tangent.dtype}) but the primal is real "
                        f"({tensor.dtype}): the imaginary part would be dropped; pass a real tangent")
    if tangent.dtype != tensor.dtype:
        tangent = tangent.to(tensor.dtype)
    return _forward.make_dual(tensor, tangent, level)


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of ``tensor`` at ``level`` (the innermost open dual level by default).

    ``tangent`` is None where the level does not move ``tensor`` (a constant, an integer result,
    a closed level).  ``primal`` is a view of ``tensor`` without that tangent, still on the tape
    (reverse mode reaches ``tensor``'s history through it).
    """
    if level is None and not _open.levels:
        return UnpackedDualTensor(tensor, None)
    level = _level(level, "unpack_dual")
    if not isinstance(tensor, Tensor):  # (torch 2.13's words; outside a level it hands the value back, as above)
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}")
    tangent = _forward.tangent_of(tensor, level)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = _forward.without_level(tensor, level)
    return UnpackedDualTensor(primal, tangent)
