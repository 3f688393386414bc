"""Numbers written into (or bounding) float tensors, near and beyond the dtype's largest value, written
once for either library: each case is a function of ``(lib, device)``, ``lib`` being ``torch`` or
``minigrad_ckpt`` (``device`` is ignored by torch).  ``make_torch_float_overflow.py`` records whether
torch 2.13 raises (its ``RuntimeError: value cannot be converted to type float without overflow``) or
what it answers; ``tests/test_float_fill_overflow.py`` asks the engine the same.
"""

from __future__ import annotations

F32_MAX = 3.4028234663852886e38  # float32's largest, exactly
F16_MAX = 65504.0


def _z(lib, dev, dtype="float32", n=2):
    return lib.zeros(n, dtype=getattr(lib, dtype)) if lib.__name__ == "torch" else lib.zeros(
        n, dtype=getattr(lib, dtype), device=dev)


def _grad_leaf(lib, dev, dtype="float32"):
    """A tensor on the tape (an in-place write to it is recorded)."""
    w = _z(lib, dev, dtype).requires_grad_(True)
    return w * 1


CASES = {
    "full float32 1e300": lambda lib, dev: lib.full((2,), 1e300, dtype=lib.float32, **_dev(lib, dev)),
    "full float32 -1e300": lambda lib, dev: lib.full((2,), -1e300, dtype=lib.float32, **_dev(lib, dev)),
    "full float32 at max": lambda lib, dev: lib.full((2,), F32_MAX, dtype=lib.float32, **_dev(lib, dev)),
    "full float32 3.4028235e38": lambda lib, dev: lib.full((2,), 3.4028235e38, dtype=lib.float32, **_dev(lib, dev)),
    "full float32 inf": lambda lib, dev: lib.full((2,), float("inf"), dtype=lib.float32, **_dev(lib, dev)),
    "full float32 nan": lambda lib, dev: lib.full((2,), float("nan"), dtype=lib.float32, **_dev(lib, dev)),
    "full float16 70000": lambda lib, dev: lib.full((2,), 70000.0, dtype=lib.float16, **_dev(lib, dev)),
    "full float16 int 70000": lambda lib, dev: lib.full((2,), 70000, dtype=lib.float16, **_dev(lib, dev)),
    "full float16 at max": lambda lib, dev: lib.full((2,), F16_MAX, dtype=lib.float16, **_dev(lib, dev)),
    "full complex64 1e300": lambda lib, dev: lib.full((1,), complex(1e300, 0), dtype=lib.complex64, **_dev(lib, dev)),
    "full float64 1e300": lambda lib, dev: lib.full((2,), 1e300, dtype=lib.float64, **_dev(lib, dev)),
    "full_like 1e300": lambda lib, dev: lib.full_like(_z(lib, dev), 1e300),
    "new_full 1e300": lambda lib, dev: _z(lib, dev).new_full((2,), 1e300),
    "fill_ 1e300": lambda lib, dev: _z(lib, dev).fill_(1e300),
    "fill_ -inf": lambda lib, dev: _z(lib, dev).fill_(float("-inf")),
    "fill_ float16 1e5": lambda lib, dev: _z(lib, dev, "float16").fill_(1e5),
    "fill_ recorded 1e300": lambda lib, dev: _grad_leaf(lib, dev).fill_(1e300),
    "fill_ recorded 2.5": lambda lib, dev: _grad_leaf(lib, dev).fill_(2.5),
    "setitem 1e300": lambda lib, dev: _setitem(_z(lib, dev), 0, 1e300),
    "setitem recorded 1e300": lambda lib, dev: _setitem(_grad_leaf(lib, dev), 0, 1e300),
    "setitem recorded -7.5": lambda lib, dev: _setitem(_grad_leaf(lib, dev), 1, -7.5),
    "clamp max 1e300": lambda lib, dev: _z(lib, dev).clamp(max=1e300),
    "clamp min -1e300": lambda lib, dev: _z(lib, dev).clamp(min=-1e300),
    "clamp max inf": lambda lib, dev: _z(lib, dev).clamp(max=float("inf")),
    "clamp_ max 1e300": lambda lib, dev: _z(lib, dev).clamp_(max=1e300),
    "clamp_max 1e300": lambda lib, dev: _z(lib, dev).clamp_max(1e300),
    "clamp float16 max 1e5": lambda lib, dev: _z(lib, dev, "float16").clamp(max=1e5),
    "clamp float64 max 1e300": lambda lib, dev: _z(lib, dev, "float64").clamp(max=1e300),
    "where other 1e300": lambda lib, dev: lib.where(_z(lib, dev) == 0, _z(lib, dev), 1e300),
    "where input 1e300": lambda lib, dev: lib.where(_z(lib, dev) == 0, 1e300, _z(lib, dev)),
    "where other 2.5": lambda lib, dev: lib.where(_z(lib, dev) == 0, _z(lib, dev), 2.5),
}


def _dev(lib, dev):
    return {} if lib.__name__ == "torch" else {"device": dev}


def _setitem(t, i, v):
    t[i] = v
    return t
