"""Point-to-point messages under PyTorch's names: ``send``/``recv`` and their non-blocking
``isend``/``irecv`` (``torch.distributed``'s arguments and meanings), on MPI for CPU tensors.

A message goes from one rank's tensor into another rank's tensor of the same size and dtype;
``tag`` tells apart messages between the same two ranks.  ``recv(t)`` without ``src`` takes a
message from any rank and returns who sent it.  Every wait is held to the group's timeout, as
the collectives' are.  The NCCL backend does not offer them.
"""

from __future__ import annotations

from typing import Any

from ..backend import host_numpy
from ..tensor import Tensor
from ._group import ProcessGroup, Work
from .collectives import _array_of, _write
from .world import world_group

__all__ = ["send", "recv", "isend", "irecv"]


def _peer(given: int | None, group_given: int | None, g: ProcessGroup, name: str, required: bool) -> int | None:
    """The other rank of a message: ``dst``/``src`` or ``group_dst``/``group_src`` (the same numbers:
    the group is the world); never this rank (PyTorch's ValueError)."""
    if given is not None and group_given is not None:
        raise ValueError(f"Can't specify both {name} and group_{name}")
    peer = group_given if given is None else given
    if peer is None:
        if required:  # PyTorch's words
            raise ValueError("Must specify global_rank or group_rank")
        return None
    if not 0 <= peer < g.size:
        raise ValueError(f"{name} must be a rank in [0, {g.size}), got {peer}")
    if peer == g.rank:
        kind = {"dst": "destination", "src": "source"}[name]
        raise ValueError(f"Invalid {kind} rank: {kind} rank should not be the same as the rank of the current process.")
    return peer


def isend(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
          group_dst: int | None = None) -> Work:
    """Start sending ``tensor`` to rank ``dst``; ``wait()`` the :class:`Work` before writing into it."""
    g = world_group(group, "isend")
    peer = _peer(dst, group_dst, g, "dst", required=True)
    arr = _array_of(tensor, "isend")
    buf = arr if arr.flags.c_contiguous else host_numpy.ascontiguousarray(arr)  # (a copy travels as it is now)
    work = g.isend(buf, peer, tag)
    work._outputs = [tensor]
    return work


def send(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0, group_dst: int | None = None) -> None:
    """Send ``tensor`` to rank ``dst`` (which calls :func:`recv`); returns once it may be overwritten."""
    isend(tensor, dst, group, tag, group_dst).wait()


class _Receive:
    """A receive into ``tensor``: MPI writes a contiguous buffer (the tensor's own array where it can)."""

    def __init__(self, tensor: Tensor, what: str) -> None:
        self.tensor = tensor
        arr = _array_of(tensor, what)
        self.direct = arr.flags.c_contiguous
        tensor.prepare_write()  # MPI writes into the array behind the engine's back
        self.buf = tensor._data if self.direct else host_numpy.empty(arr.shape, dtype=arr.dtype)

    def done(self) -> None:
        if self.direct:
            self.tensor.increment_version()  # MPI wrote into the array
        else:
            _write(self.tensor, self.buf)


def _start_receive(tensor: Tensor, src: int | None, group: Any, tag: int, group_src: int | None,
                   what: str) -> tuple[Work, Any]:
    """The started receive into ``tensor`` and the MPI status that names its sender once complete."""
    g = world_group(group, what)
    peer = _peer(src, group_src, g, "src", required=False)
    receive = _Receive(tensor, what)
    work, status = g.irecv(receive.buf, peer, tag, on_done=receive.done)
    work._outputs = [tensor]
    return work, status


def irecv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
          group_src: int | None = None) -> Work:
    """Start receiving into ``tensor`` from rank ``src`` (any rank without it); ``wait()`` for it."""
    return _start_receive(tensor, src, group, tag, group_src, "irecv")[0]


def recv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank without it); returns the sender's rank."""
    work, status = _start_receive(tensor, src, group, tag, group_src, "recv")
    work.wait()
    return int(status.Get_source())
