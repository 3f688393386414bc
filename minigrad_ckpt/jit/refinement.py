"""``torch.jit.isinstance``: ``isinstance`` that also reads typing's parameterized containers.

TorchScript code refines an argument typed ``Union[str, bool]`` or ``Any`` with
``torch.jit.isinstance(x, List[int])``; torchaudio's ``spectrogram`` asks it of its ``normalized``
argument on every call. In eager PyTorch it checks the container and each element against the
parameters (``List[int]``, ``Dict[str, List[Tensor]]``, ``Tuple[int, str]``, ``Optional[...]``),
which is what this module does. An empty container cannot tell its element type, so it is taken,
with PyTorch's warning. One difference: of a ``Union`` whose first member is a container,
PyTorch's eager check answers for that member alone (``isinstance(3, Union[List[int], int])`` is
False there); here each member is asked, as the annotation means.
"""

from __future__ import annotations

import collections.abc
import types
import typing
import warnings
from typing import Any

from ..user_frame import stacklevel_outside_the_engine

__all__ = ["isinstance"]

_builtin_isinstance = isinstance
# typing's bare aliases and the builtin classes, which name a container without its element type
# (PyTorch's _RAW_TYPE_NAME_MAPPING: ``torch.jit.isinstance(x, list)`` is refused as ``List`` is)
_BARE_CONTAINERS = {typing.List: "List", typing.Dict: "Dict", typing.Tuple: "Tuple",  # noqa: UP006
                    typing.Optional: "Optional", list: "list", dict: "dict", tuple: "tuple"}


def isinstance(obj: Any, target_type: Any) -> bool:  # noqa: A001  (PyTorch's name)
    """True when ``obj`` is of ``target_type``: a class, a tuple of them, or a parameterized
    container of typing (``List[int]``, ``Dict[str, int]``, ``Tuple[int, str]``, ``Optional[int]``)
    whose elements are checked too. A bare ``List`` (no element type) is PyTorch's ``RuntimeError``.
    """
    if _builtin_isinstance(target_type, collections.abc.Container):
        if not _builtin_isinstance(target_type, tuple):
            raise RuntimeError("The second argument to `torch.jit.isinstance` must be a type or a tuple of types")
        return any(isinstance(obj, t) for t in target_type)
    _refuse_bare_container(target_type)
    if typing.get_origin(target_type) is not None:
        return _is_container_of(obj, target_type)
    return _builtin_isinstance(obj, target_type)


def _refuse_bare_container(target_type: Any) -> None:
    name = _BARE_CONTAINERS.get(target_type)
    if name is not None and name.endswith("ict"):  # (two parameters: PyTorch's plural)
        raise RuntimeError(f"Attempted to use {name} without contained types. "
                           f"Please add contained type, e.g. {name}[int, int]")
    if name is not None:
        raise RuntimeError(f"Attempted to use {name} without a contained type. "
                           f"Please add a contained type, e.g. {name}[int]")


def _warn_if_empty(obj: Any) -> None:
    if _builtin_isinstance(obj, (list, dict, tuple)) and len(obj) == 0:
        warnings.warn("The inner type of a container is lost when calling torch.jit.isinstance in eager mode. "
                      "For example, List[int] would become list and therefore falsely return True for "
                      "List[float] or List[str].", stacklevel=stacklevel_outside_the_engine())


def _is_container_of(obj: Any, target_type: Any) -> bool:
    origin, args = typing.get_origin(target_type), typing.get_args(target_type)
    if origin is list:
        _warn_if_empty(obj)
        return _builtin_isinstance(obj, list) and all(isinstance(el, args[0]) for el in obj)
    if origin is dict:
        _warn_if_empty(obj)
        return _builtin_isinstance(obj, dict) and all(
            isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        _warn_if_empty(obj)
        return (_builtin_isinstance(obj, tuple) and len(obj) == len(args)
                and all(isinstance(el, t) for el, t in zip(obj, args)))
    if origin is typing.Union or origin is types.UnionType:
        return obj is None or any(isinstance(obj, t) for t in args)
    return False
