"""``mg.autograd.graph``: PyTorch's hooks on the values the tape saves for backward.

``with saved_tensors_hooks(pack_hook, unpack_hook):`` -- every op recorded inside passes each array it
saves for backward to ``pack_hook`` (as a Tensor sharing the memory) and keeps only what that returns
(any Python object); backward calls ``unpack_hook`` on it for the Tensor to use, each time it reads it.
Nested pairs: the innermost applies.  ``save_on_cpu()`` is the pair that keeps saved values on the CPU
(and moves them back to their device for backward).  Differences: the hooks see the arrays the engine's
ops save, which are not always PyTorch's (``x * 2`` keeps no ``x`` in either; other ops may keep their
output where PyTorch keeps an input), and ops recorded inside a checkpoint segment or while the memory
ledger counts are not packed (a segment replays its ops instead; PyTorch's checkpoint's own hooks win
there too).  ``increment_version(tensor)`` restamps tensors written where the engine could not see.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import tape
from ..tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "increment_version"]

#: error messages of the active disable_saved_tensors_hooks blocks (innermost last)
_disabled: list[str] = []


class saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """A context manager: ``pack_hook(tensor) -> packed`` when an op saves ``tensor`` for backward,
    ``unpack_hook(packed) -> Tensor`` when backward reads it."""

    def __init__(self, pack_hook: Any, unpack_hook: Any) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if _disabled:
            raise RuntimeError(_disabled[-1])
        tape.saved_hooks.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *args: Any) -> None:
        tape.saved_hooks.pop()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 (PyTorch's name)
    """Saved values kept on the CPU and moved back to their device when backward reads them
    (``pin_memory`` is taken and changes nothing: there is no pinned memory here)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Any) -> tuple:
            return tensor.device, tensor.cpu()

        def unpack_from_cpu(packed: tuple) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:  # noqa: N801 (PyTorch's name)
    """A context manager (or decorator) inside which entering ``saved_tensors_hooks`` is a RuntimeError
    with ``error_message``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        _disabled.append(self.error_message)

    def __exit__(self, *args: Any) -> None:
        _disabled.pop()

    def __call__(self, fn: Any) -> Any:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)
        return wrapped


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """PyTorch's ``torch.autograd.graph.increment_version``: restamp the version of ``tensor`` (or of
    each tensor of an iterable) after a write the engine did not see (a kernel that filled its memory
    in place), so a backward that reads a value saved before the write raises, as after any in-place op."""
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        t.increment_version()
