"""``mg.jit``: the TorchScript spellings model code carries, answered as eager Python.

Model libraries written for PyTorch guard their Python-only paths for TorchScript:
torchvision's models call ``torch.jit.is_scripting()`` and ``torch.jit.is_tracing()`` in their
``forward`` and mark helpers ``@torch.jit.unused``. Here nothing is ever scripted or traced, so
those questions answer False and the markers leave what they mark as it is; such code runs
unchanged. ``script`` and ``trace`` return what they are given, as :func:`minigrad_ckpt.compile`
does: TorchScript promises the same results as the eager program, and the eager program is what
runs here (a traced function's control flow is therefore *not* frozen at the example input).
Saving and loading TorchScript archives (``torch.jit.save`` / ``load``) is not offered: there is no
TorchScript program to save -- save the weights with ``mg.save(model.state_dict(), path)``. ``load``
exists only to refuse with PyTorch's ``RuntimeError`` (its answer to a file holding no TorchScript
program), which the loaders that try TorchScript first catch to fall back on ``torch.load``.

Beside them, the assertions such code writes so that it stays traceable, ``torch._assert``,
``torch._check`` and ``torch._assert_async``, are :func:`_assert`, :func:`_check` and
:func:`_assert_async` here (``mg._assert``, ``mg._check``, ``mg._assert_async``);
``mg.jit.annotations`` holds the typing names TorchScript code imports from ``torch.jit.annotations``,
and ``mg.jit.isinstance`` is ``torch.jit.isinstance``, the check of a parameterized container
(``List[int]``) that torchaudio's ``spectrogram`` makes of its ``normalized`` argument.
"""

from __future__ import annotations

import builtins  # this module's own isinstance is torch.jit.isinstance
import os
from collections.abc import Callable
from typing import Any, Final, TypeVar  # Final: PyTorch's torch.jit.Final is typing's

from ..nn import Module
from ..tensor import Tensor
from . import annotations  # noqa: F401  (torch.jit.annotations)
from .refinement import isinstance  # noqa: A004  (torch.jit.isinstance)

__all__ = ["Final", "ScriptModule", "annotate", "export", "ignore", "is_scripting", "is_tracing", "isinstance", "load",
           "save", "script", "script_if_tracing", "script_method", "trace", "unused"]

F = TypeVar("F")


def is_scripting() -> bool:
    """False: code here always runs as Python (PyTorch's answer outside TorchScript)."""
    return False


def is_tracing() -> bool:
    """False: nothing is being traced."""
    return False


def annotate(the_type: Any, the_value: F) -> F:
    """``the_value`` itself; TorchScript reads ``the_type`` (``torch.jit.annotate(List[int], [])``)."""
    return the_value


def unused(fn: F) -> F:
    """``fn`` itself: TorchScript would leave it uncompiled; here nothing is compiled."""
    return fn


def export(fn: F) -> F:
    """``fn`` itself: TorchScript would compile it as an entry point of a scripted module."""
    return fn


def _overload_method(fn: F) -> F:
    """``fn`` itself: TorchScript reads the typed stubs before a method's real definition, which
    Python's own name binding then replaces (torchvision's DenseNet layer writes them)."""
    return fn


def script_if_tracing(fn: F) -> F:
    """``fn`` itself: PyTorch scripts it only while tracing, and nothing traces here
    (torchvision's ``batched_nms`` carries it, under its private name ``_script_if_tracing``)."""
    return fn


_script_if_tracing = script_if_tracing


class ScriptModule(Module):
    """PyTorch's base class for modules compiled by TorchScript as they are built; here an ordinary
    :class:`~minigrad_ckpt.nn.Module`, since nothing is compiled.

    Code of TorchScript's first years subclasses it and marks the methods to compile with
    :func:`script_method`; RWKV's model files choose between it and ``nn.Module`` at import
    (``MyModule = torch.jit.ScriptModule if os.environ["RWKV_JIT_ON"] == "1" else nn.Module``).
    Such a subclass runs here as the eager module it describes: the same parameters, state-dict keys
    and results (PyTorch's compiled one promises the eager results).
    """


def script_method(fn: F) -> F:
    """``fn`` itself: the method of a :class:`ScriptModule` that TorchScript would compile when the
    module is built (PyTorch's needs the method's source file; nothing is compiled here)."""
    return fn


def _overload(fn: F) -> F:
    """``fn`` itself, for a function's typed stubs (see :func:`_overload_method`)."""
    return fn


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """``@torch.jit.ignore`` or ``@torch.jit.ignore(drop=True)``: the function itself."""
    if callable(drop):
        return drop
    return lambda fn: fn


def script(obj: F, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> F:
    """``obj`` (a module or a function) itself, run as Python; PyTorch's options are accepted."""
    if not callable(obj) and not builtins.isinstance(obj, type):
        raise TypeError(f"jit.script: expected a Module, a function or a class, got {type(obj).__name__}")
    return obj


def trace(func: Callable[..., Any], example_inputs: Any = None, *args: Any, **kwargs: Any) -> Callable[..., Any]:
    """``func`` itself: the eager function every call (PyTorch's trace would replay the ops the example
    inputs took; a function whose control flow depends on its input keeps that control flow here)."""
    if not callable(func):
        raise TypeError(f"jit.trace: expected a Module or a function, got {type(func).__name__}")
    return func


def load(f: Any, map_location: Any = None, _extra_files: Any = None, _restore_shapes: bool = False) -> Any:
    """A ``RuntimeError``: no file holds a TorchScript program this engine could run.

    It is PyTorch's type for a file that is not a TorchScript archive (a ``torch.save`` state dict),
    and the type that loaders written for PyTorch catch to fall back on ``torch.load`` -- openai/CLIP's
    ``clip.load`` and open_clip's ``load_openai_model`` try ``torch.jit.load`` first -- so such a loader
    reads a state dict saved with ``mg.save`` unchanged.  A path that does not exist is PyTorch's
    ``ValueError``.  A file object is left where it was (PyTorch's reader leaves it at its end, where
    the fallback's ``torch.load`` of the same object finds nothing), so that the fallback reads it.
    """
    if builtins.isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise ValueError(f"The provided filename {os.fspath(f)} does not exist")
    raise RuntimeError("jit.load: nothing is TorchScript here, so no TorchScript archive can be loaded; "
                       "a state dict saved with mg.save(model.state_dict(), path) loads with "
                       "model.load_state_dict(mg.load(path))")


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """A ``RuntimeError`` naming what to save instead: ``mg.jit.trace`` and ``script`` return the
    module itself, so there is no TorchScript program to write (yolov5's export calls
    ``torch.jit.save`` after tracing).  ``mg.save(m.state_dict(), f)`` saves the weights, which
    ``load_state_dict`` reads back, here or in PyTorch."""
    raise RuntimeError("jit.save: nothing is TorchScript here (jit.trace and jit.script return the module or "
                       "function itself), so there is no program to save; save the weights with "
                       "mg.save(model.state_dict(), path) and load them with model.load_state_dict(mg.load(path))")


def _assert(condition: Any, message: str) -> None:
    """``assert condition, message`` -- PyTorch's ``torch._assert``, which tracing can record;
    ``condition`` may be a one-element tensor."""
    assert condition, message


def _assert_async(input: Any, assert_msg: str | None = None) -> None:  # noqa: A002
    """PyTorch's ``torch._assert_async``: a ``RuntimeError`` unless the one-element tensor ``input``
    is nonzero (``assert_msg`` its message when given). PyTorch defers the check on a GPU; here it is
    made at once, which raises the same error, only earlier. kornia's ``enhance`` guards its
    arguments with it (``adjust_gamma``'s ``gamma >= 0``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"_assert_async(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.numel() != 1:  # the engine's words for a tensor with no or several values, PyTorch's
        bool(input)
    if not bool(input):
        raise RuntimeError(assert_msg if assert_msg is not None else
                           "Expected Tensor with single nonzero value, but got zero")


def _check(cond: bool, message: Callable[[], Any] | None = None) -> None:
    """PyTorch's ``torch._check``: a ``RuntimeError`` with ``message()`` unless ``cond`` is True.
    ``cond`` must be a Python bool (a tensor is a ``TypeError``, as in PyTorch), and ``message`` a
    callable, so that the message is built only when the check fails."""
    if not builtins.isinstance(cond, bool):
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is not None and not callable(message):
        raise TypeError("message must be a callable")
    raise RuntimeError("Expected cond to be True, but got False." if message is None else str(message()))
