"""``mg.amp``: PyTorch's mixed-precision helpers, ``GradScaler`` and ``autocast``, so that a
training loop written for them runs after the rename.

``GradScaler`` is PyTorch's dynamic loss scaling, step for step: ``scale(loss)`` multiplies by
the scale (2**16 to start), ``unscale_``/``step`` divide the gradients back and skip the
optimizer's step when any is inf or NaN, ``update()`` halves the scale after such a step and
doubles it after ``growth_interval`` clean ones.  As PyTorch's, it is enabled only where its
device is: ``GradScaler()`` (device ``"cuda"``) without a GPU is a pass-through, ``"cpu"`` always
scales.  Scaling by a power of two is exact, so gradients and steps are those of the plain loop.
The scale is a float32, as PyTorch's tensor is: other factors round as PyTorch's do, bit for bit.

``autocast`` cannot lower precision here (there are no float16/bfloat16 kernels): ops run in
their inputs' dtype; enabled where its device is, it says so once with a warning rather than
silently computing at another precision than PyTorch would.  Its *state* is PyTorch's, kept per
thread in :mod:`minigrad_ckpt.autocast_state`: inside a block ``mg.is_autocast_enabled("cpu")`` is
True and ``mg.get_autocast_dtype("cpu")`` names the dtype PyTorch would compute in (``mg.bfloat16``
by default, a name only: casting to it is a TypeError naming float32).
"""

from __future__ import annotations

import functools
import math
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from . import autocast_state as _state
from .backend import BFLOAT16, HALF, cuda_device_count, host_numpy
from .grad_mode import no_grad
from .nn.parallel import note_grad_scaler
from .optim.optimizer import Optimizer, note_gradients_used
from .submodule_paths import install as _install_submodules
from .tensor import Tensor
from .user_frame import stacklevel_outside_the_engine

__all__ = ["GradScaler", "autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


def _device_available(device: str) -> bool:
    kind = str(device).split(":")[0]
    return kind == "cpu" or (kind == "cuda" and cuda_device_count() > 0)


class GradScaler:
    """PyTorch's ``torch.amp.GradScaler(device, init_scale, growth_factor, backoff_factor,
    growth_interval, enabled)``."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        if enabled and not _device_available(device):
            warnings.warn(f"GradScaler is enabled, but device {device!r} is not available; disabling",
                          UserWarning, stacklevel=stacklevel_outside_the_engine())
            enabled = False
        if enabled and not (growth_factor > 1.0 and backoff_factor < 1.0):
            raise ValueError("GradScaler: growth_factor must be > 1 and backoff_factor < 1")
        self._enabled = bool(enabled)
        # PyTorch's scale is a float32 tensor made at the first scale() (init_scale as given until then)
        self._init_scale, self._scale, self._growth_tracker = float(init_scale), None, 0
        self._growth_factor, self._backoff_factor = float(growth_factor), float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._per_optimizer: dict[int, dict[str, Any]] = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        return self._growth_tracker if self._enabled else 0

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled; ``init_scale`` as given before the first ``scale()``,
        as PyTorch's)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def _current_scale(self) -> float:
        """The float32 scale, made from ``init_scale`` the first time (PyTorch's lazy init)."""
        if self._scale is None:
            self._scale = _float32(self._init_scale)
        return self._scale

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a Tensor, or lists/tuples of them) times the scale; unchanged when disabled.
        Another iterable (a generator) gives a lazy ``map`` of the scaled tensors, as PyTorch's."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if outputs.dtype is HALF:  # (identity: once per step, beside every loss)
                return self._scaled_half(outputs)
            return outputs * self._current_scale()
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if isinstance(outputs, Iterable):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _scaled_half(self, outputs: Tensor) -> Tensor:
        """A float16 ``outputs`` times PyTorch's scale, a float32 0-d tensor: the product is taken in
        float32, and rounded once to float16 for a tensor with dimensions (a 0-d float16 loss promotes
        to float32, as two 0-d tensors do).  A float16 product would round the scale first: 65536 is
        beyond float16, and every scaled output was inf."""
        wide = outputs.float() * self._current_scale()
        return wide if outputs.ndim == 0 else wide.half()

    def _check_scaled(self, funcname: str) -> None:
        """PyTorch's refusal of ``unscale_``/``step``/``update`` before any ``scale()``: its scale
        does not exist yet, and dividing by ``init_scale`` gradients that were never scaled
        would silently shrink them."""
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")

    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": None})

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place, noting whether any is inf/NaN."""
        if not self._enabled:
            return
        self._check_scaled("unscale_")
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = _reciprocal_float32(self._current_scale())
        found_inf = None  # no gradient at all: no inf check recorded, which step() and update() refuse
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype is HALF:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    found_inf = bool(found_inf) or not bool(p.grad.isfinite().all().item())
                    p.grad.mul_(inv_scale)
        state["found_inf"], state["stage"] = found_inf, _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``optimizer.step()`` on the unscaled gradients, skipped if any was inf/NaN (returns None then)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scaled("step")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:  # (an optimizer none of whose parameters has a gradient)
            raise AssertionError("No inf checks were recorded for this optimizer.")
        if state["found_inf"]:
            result = None
            if isinstance(optimizer, Optimizer) and "_gradients_used" in optimizer.__dict__:  # (watched: dropped
                # as a step would use them)
                note_gradients_used(optimizer)
        else:
            result = optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Back off after a skipped step, grow after ``growth_interval`` clean ones (or set ``new_scale``)."""
        if not self._enabled:
            return
        self._check_scaled("update")
        note_grad_scaler(self)  # a DDP join() block in progress syncs this state across ranks at its end
        scale = self._current_scale()
        if new_scale is not None:
            if isinstance(new_scale, Tensor) and (new_scale.numel() != 1 or new_scale.requires_grad):
                raise AssertionError("new_scale should be a float or a 1-element FloatTensor with requires_grad=False.")
            self._scale = _float32(new_scale.item() if isinstance(new_scale, Tensor) else new_scale)
        else:
            found_infs = [s["found_inf"] for s in self._per_optimizer.values() if s["found_inf"] is not None]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            # PyTorch's _amp_update_scale_: float32(scale * factor), the product taken in double; a
            # growth float32 cannot hold keeps the scale
            if any(found_infs):
                self._scale = _float32(scale * self._backoff_factor, check=False)
                self._growth_tracker = 0
            elif self._growth_tracker + 1 == self._growth_interval:
                grown = _float32(scale * self._growth_factor, check=False)
                self._scale = grown if grown != float("inf") else scale
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
        self._per_optimizer.clear()

    def state_dict(self) -> dict[str, Any]:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:  # PyTorch's fill_ of its float32 scale; else the first scale() makes it
            self._scale = _float32(self._init_scale)
        self._growth_factor, self._backoff_factor = state_dict["growth_factor"], state_dict["backoff_factor"]
        self._growth_interval, self._growth_tracker = state_dict["growth_interval"], state_dict["_growth_tracker"]


def _float32(value: Any, check: bool = True) -> float:
    """``value`` rounded to float32, as PyTorch's float32 scale tensor holds it; a finite value
    beyond float32 is PyTorch's RuntimeError where ``check`` (a scale set from outside)."""
    with host_numpy.errstate(over="ignore"):
        out = float(host_numpy.float32(value))
    if check and abs(out) == float("inf") and abs(float(value)) != float("inf"):
        raise RuntimeError("value cannot be converted to type float without overflow")
    return out


def _reciprocal_float32(scale: float) -> float:
    """PyTorch's ``scale.double().reciprocal().float()``: a scale backed off (or set) to zero has the
    reciprocal ``inf`` of its sign, not Python's ZeroDivisionError -- PyTorch's run goes on (its
    gradients unscale to ``0 * inf = NaN``, which its check of the scaled gradients does not see)."""
    if scale == 0.0:
        return math.copysign(math.inf, scale)
    return _float32(1.0 / scale, check=False)


class autocast:  # noqa: N801  (PyTorch's name)
    """PyTorch's ``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)`` as a
    context manager or decorator: ops keep their inputs' dtype here (see the module docstring), and
    the autocast *state* is PyTorch's -- inside, ``mg.is_autocast_enabled(device_type)`` is True and
    ``mg.get_autocast_dtype(device_type)`` is ``dtype``; leaving (by an exception too) puts back what
    was there (:mod:`minigrad_ckpt.autocast_state`).

    As PyTorch's, ``dtype=None`` and ``cache_enabled=None`` take the thread's current setting when
    the instance is made (a decorator's, when it decorates), a device string may carry an index
    (``"cuda:0"``), and an unsupported dtype (float32 for ``"cpu"``) or ``"cuda"`` without a GPU
    warns and leaves autocast off.  Unlike PyTorch's, one instance entered again before it is left
    (a decorated function that recurses, or runs in two threads) restores each entry's own state:
    PyTorch's keeps one saved state per instance, and its outer exit leaves autocast on."""

    _warned = False

    def __init__(self, device_type: str = "cuda", dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        _check_device_type(device_type)  # PyTorch's errors: a misspelt device type is no silent no-op
        self.device_type = self.device = device_type
        kind = _state.device_type_of(device_type)
        self.fast_dtype = _state.get_autocast_dtype(kind) if dtype is None else _state.autocast_dtype_of(dtype)
        self._cache_enabled = _state.is_autocast_cache_enabled() if cache_enabled is None else bool(cache_enabled)
        self.enabled = self._enabled = bool(enabled) and _enabled_where_offered(kind, self.fast_dtype)
        self._saved = threading.local()  # per thread, a stack: an instance may be entered again
        if self.enabled and not autocast._warned:
            autocast._warned = True
            warnings.warn("autocast: lower-precision kernels are not offered; ops run in their inputs' dtype "
                          "(float32 stays float32)", UserWarning, stacklevel=stacklevel_outside_the_engine())

    def __enter__(self) -> autocast:
        kind = _state.device_type_of(self.device_type)
        stack = self._saved.__dict__.setdefault("stack", [])
        stack.append((_state.is_autocast_enabled(kind), _state.get_autocast_dtype(kind),
                      _state.is_autocast_cache_enabled()))
        _state.set_autocast_enabled(kind, self._enabled)
        _state.set_autocast_dtype(kind, self.fast_dtype)
        _state.autocast_increment_nesting()
        _state.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc: Any) -> None:
        kind = _state.device_type_of(self.device_type)
        if _state.autocast_decrement_nesting() == 0:
            _state.clear_autocast_cache()
        enabled, dtype, cache_enabled = self._saved.stack.pop()
        _state.set_autocast_enabled(kind, enabled)
        _state.set_autocast_dtype(kind, dtype)
        _state.set_autocast_cache_enabled(cache_enabled)
        return None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(fn):
            raise TypeError(f"autocast()(func) requires a callable, but got {type(fn).__name__}. Did you mean to "
                            "use autocast as a context manager? For example:\n    with torch.autocast(device_type=...):"
                            "\n        output = model(input)")

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)
        return wrapper


def _enabled_where_offered(kind: str, dtype: Any) -> bool:
    """Whether an enabled autocast stays on: PyTorch's checks, each a warning that turns it off."""
    if kind == "cuda":
        if not _device_available(kind):
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", UserWarning,
                          stacklevel=stacklevel_outside_the_engine())
            return False
        return True
    if not _device_available(kind):  # a device type the engine has no device of (mps, xla, ...)
        return False
    if dtype is not BFLOAT16 and dtype is not HALF:
        name = kind.upper()
        warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n{name} "
                      "Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.", UserWarning,
                      stacklevel=stacklevel_outside_the_engine())
        return False
    return True


def is_autocast_available(device_type: str) -> bool:
    """PyTorch's ``torch.amp.is_autocast_available``: whether ``autocast`` takes ``device_type``
    (``"cpu"`` and ``"cuda"``, with or without an index); a name that is no device type is its
    RuntimeError."""
    return _state.device_type_of(device_type) in ("cpu", "cuda")


def _check_device_type(device_type: Any) -> None:
    """PyTorch's checks of the decorators' ``device_type``: a string naming a device type."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    is_autocast_available(device_type)


def custom_fwd(fwd: Callable[..., Any] | None = None, *, device_type: str, cast_inputs: Any = None) -> Any:
    """PyTorch's decorator for a custom Function's ``forward`` under autocast (``@custom_fwd(device_type=
    "cuda")``, ``cast_inputs=``).  As PyTorch's, it notes on ``ctx`` whether autocast was on, for
    :func:`custom_bwd`, and with ``cast_inputs`` runs the forward with autocast off inside an enabled
    region (``is_autocast_enabled`` says so there).  PyTorch also casts the floating inputs to
    ``cast_inputs`` then; ``autocast`` changes no dtype here (see the module docstring), so the inputs
    reach the forward as given."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    _check_device_type(device_type)

    @functools.wraps(fwd)
    def forward(*args: Any, **kwargs: Any) -> Any:
        ctx, on = args[0], _state.is_autocast_enabled(device_type)
        ctx._dtype = _state.get_autocast_dtype(device_type)
        ctx._fwd_used_autocast = on and cast_inputs is None
        if on and cast_inputs is not None:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*args, **kwargs)
        return fwd(*args, **kwargs)
    return forward


def custom_bwd(bwd: Callable[..., Any] | None = None, *, device_type: str) -> Any:
    """PyTorch's decorator for a custom Function's ``backward``: it runs under the autocast state its
    forward ran in (noted by :func:`custom_fwd`; off where the forward was not decorated), whatever
    the state where backward is called -- which here changes no dtype, only what
    ``is_autocast_enabled`` answers inside."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    _check_device_type(device_type)

    @functools.wraps(bwd)
    def backward(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type=device_type, enabled=getattr(ctx, "_fwd_used_autocast", False),
                      dtype=getattr(ctx, "_dtype", None)):
            return bwd(*args, **kwargs)
    return backward


def deprecated_device_spellings(device: str, default_dtype: str) -> tuple[type, type]:
    """``(autocast, GradScaler)`` of PyTorch's deprecated ``torch.<device>.amp`` module: the classes
    above with ``device`` fixed, ``autocast(enabled=True, dtype=default_dtype, cache_enabled=True)``,
    each warning PyTorch's FutureWarning that names the spelling to use (``mg.cpu.amp``, ``mg.cuda.amp``)."""

    def deprecated(what: str) -> None:
        warnings.warn(f"`torch.{device}.amp.{what}(args...)` is deprecated. Please use `torch.amp.{what}('{device}', "
                      "args...)` instead.", FutureWarning, stacklevel=stacklevel_outside_the_engine())

    class DeviceAutocast(autocast):
        __doc__ = f"``torch.{device}.amp.autocast(enabled=True, dtype=torch.{default_dtype}, cache_enabled=True)``."

        def __init__(self, enabled: bool = True, dtype: Any = default_dtype, cache_enabled: bool = True) -> None:
            deprecated("autocast")
            super().__init__(device, dtype, enabled, cache_enabled)

    class DeviceGradScaler(GradScaler):
        __doc__ = (f"``torch.{device}.amp.GradScaler(init_scale, growth_factor, backoff_factor, growth_interval, "
                   "enabled)``.")

        def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                     growth_interval: int = 2000, enabled: bool = True) -> None:
            deprecated("GradScaler")
            super().__init__(device, init_scale, growth_factor, backoff_factor, growth_interval, enabled)

    module = f"{__name__.rpartition('.')[0]}.{device}.amp"
    for cls, name in ((DeviceAutocast, "autocast"), (DeviceGradScaler, "GradScaler")):
        cls.__name__, cls.__qualname__, cls.__module__ = name, name, module
    return DeviceAutocast, DeviceGradScaler


# PyTorch's torch.amp is a package: ``from torch.amp.grad_scaler import GradScaler`` imports after the rename
_install_submodules(globals(), {"grad_scaler": ("GradScaler",),
                                "autocast_mode": ("autocast", "is_autocast_available", "custom_fwd", "custom_bwd")})
