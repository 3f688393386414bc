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
from collections.abc import Callable, Iterator
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
    if opts["sci_mode"] is not None and array.dtype.kind in "fc":  # NumPy's own switch to exponents is per array
        formatter = _forced_notation(array, int(opts["precision"]), opts["sci_mode"])
    return host_numpy.array2string(
        array, separator=", ", prefix=prefix, precision=int(opts["precision"]),
        threshold=threshold if math.isfinite(threshold) else host_numpy.iinfo(host_numpy.intp).max,
        edgeitems=int(opts["edgeitems"]), max_line_width=int(opts["linewidth"]),
        suppress_small=opts["sci_mode"] is False, formatter=formatter)


def _forced_notation(array: Any, digits: int, scientific: bool) -> dict[str, Callable[[Any], str]]:
    """array2string's formatter for ``sci_mode`` True (always exponents) or False (never): NumPy
    chooses per array and writes exponents for a value of 1e8 or more even when told to suppress
    them, which ``sci_mode=False`` -- PyTorch's "never" -- must not."""
    if scientific:
        def sci(v: Any) -> str:
            return host_numpy.format_float_scientific(v, precision=digits, unique=False, exp_digits=2)

        return {"float_kind": sci,
                "complex_kind": lambda z: f"{sci(z.real)}{'-' if z.imag < 0 else '+'}{sci(abs(z.imag))}j"}
    shown = _shown_values(array)
    real = _fixed_point(shown.real, digits)
    if array.dtype.kind != "c":
        return {"float_kind": real}
    imag = _fixed_point(shown.imag, digits, sign=True)

    def complex_text(z: Any) -> str:  # the padding after the imaginary part's "j", as NumPy's
        padded = imag(z.imag)
        digits_only = padded.rstrip()
        return f"{real(z.real)}{digits_only}j{' ' * (len(padded) - len(digits_only))}"

    return {"complex_kind": complex_text}


def _fixed_point(values: Any, digits: int, sign: bool = False) -> Callable[[Any], str]:
    """Fixed-point text of one value, in NumPy's style (the shortest digits that round-trip, at most
    ``digits`` after the point, trailing zeros dropped; ``sign``: a "+" too), padded so that the
    points of ``values`` line up."""
    def plain(v: Any, **pad: int) -> str:
        return host_numpy.format_float_positional(v, precision=digits, trim=".", sign=sign, **pad)

    parts = [plain(v).split(".") for v in values[host_numpy.isfinite(values)].ravel()]
    left = max((len(whole) for whole, _ in parts), default=1)
    right = max((len(fraction) for _, fraction in parts), default=0)

    def text(v: Any) -> str:
        if not host_numpy.isfinite(v):  # nan, inf, -inf: right-aligned in the numbers' width
            return (f"+{v}" if sign and not v < 0 else str(v)).rjust(left + 1 + right)
        return plain(v, pad_left=left, pad_right=right)

    return text


def _shown_values(array: Any) -> Any:
    """The elements a summarized print shows (``edgeitems`` at each end of every long dim), so that
    widths are measured on them, as NumPy's own, and a huge tensor is not formatted whole."""
    edge = int(_options["edgeitems"])
    if array.size <= _options["threshold"]:
        return array
    for axis, n in enumerate(array.shape):
        if n > 2 * edge:
            array = host_numpy.take(array, list(range(edge)) + list(range(n - edge, n)), axis=axis)
    return array
