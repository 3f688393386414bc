"""How a Tensor prints: PyTorch's ``torch.set_printoptions`` (with ``get_printoptions`` and the
``printoptions`` context manager of ``torch._tensor_str``) over NumPy's ``array2string``.

The options are PyTorch's -- ``precision`` (digits after the point), ``threshold`` (more elements
than this print summarized), ``edgeitems`` (items kept at each end of a summarized dim),
``linewidth`` (characters per line), ``sci_mode`` (True: always scientific, False: never, None:
chosen per tensor) and the profiles ``"default"``, ``"short"`` and ``"full"`` -- with PyTorch's
effect.  The numbers are NumPy's style (``tensor([1. , 2.5])``, trailing zeros dropped), and so are
the ``"default"`` profile's precision, threshold and linewidth (8, 200, 75: PyTorch's are 4, 1000,
80), which the engine's docs print with; ``"short"`` and ``"full"`` set what PyTorch's set
(``"full"``: the default with no summarizing).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

from .backend import host_numpy

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "format_array"]

_PROFILES = {
    "default": {"precision": 8, "threshold": 200, "edgeitems": 3, "linewidth": 75},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 8, "threshold": math.inf, "edgeitems": 3, "linewidth": 75},
}
_options: dict[str, Any] = {**_PROFILES["default"], "sci_mode": None}


def set_printoptions(precision: int | None = None, threshold: float | None = None, edgeitems: int | None = None,
                     linewidth: int | None = None, profile: str | None = None, sci_mode: bool | None = None) -> None:
    """Set how tensors print, as ``torch.set_printoptions``: a profile first, then each option given
    over it.  As PyTorch's, an unknown profile changes nothing, and ``sci_mode`` is set on every call
    (left out, it goes back to None: chosen per tensor)."""
    if profile in _PROFILES:
        _options.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            _options[name] = value
    _options["sci_mode"] = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as a dict that ``set_printoptions(**d)`` takes back."""
    return dict(_options)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[None]:
    """Change the options for a ``with`` block, restoring them after (``torch._tensor_str.printoptions``)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


def format_array(array: Any, prefix: str) -> str:
    """A host array's values as the current options print them, lines after the first indented by
    ``prefix``'s width (the text before the array on its first line)."""
    opts = _options
    threshold = opts["threshold"]
    formatter = None
    if opts["sci_mode"] and array.dtype.kind in "fc":  # NumPy's own switch to exponents is per array; this is always
        digits = int(opts["precision"])

        def sci(v: Any) -> str:
            return host_numpy.format_float_scientific(v, precision=digits, unique=False, exp_digits=2)

        formatter = {"float_kind": sci,
                     "complex_kind": lambda z: f"{sci(z.real)}{'-' if z.imag < 0 else '+'}{sci(abs(z.imag))}j"}
    return host_numpy.array2string(
        array, separator=", ", prefix=prefix, precision=int(opts["precision"]),
        threshold=threshold if math.isfinite(threshold) else host_numpy.iinfo(host_numpy.intp).max,
        edgeitems=int(opts["edgeitems"]), max_line_width=int(opts["linewidth"]),
        suppress_small=opts["sci_mode"] is False, formatter=formatter)
