"""Calls that NumPy and PyTorch read differently: NumPy's answer, said out loud.

``mg.max(x, 1)`` is one spelling in both libraries and two answers: NumPy's maximum over axis 1, one
tensor; PyTorch's ``(values, indices)``.  A function of this package keeps NumPy's meaning
(``docs/from-pytorch.md``), so a program ported from PyTorch by renaming ``torch`` to ``mg`` got NumPy's
answer -- often with no error after it: ``_, predicted = mg.max(logits, 1)`` unpacks a batch of two
rows, ``mg.sort(p)[0]`` is the smallest value, ``mg.var(x)`` divides by ``n``, not ``n - 1``.  Most
programs ported from PyTorch's tutorials and courses met one of these.

Such a call warns (:class:`AmbiguousSpellingWarning`, once per line, as Python shows a warning) and
answers NumPy's way; the warning names the two spellings that say which answer is meant: NumPy's
keyword (``axis=``, ``ddof=``, ``indexing=``, ...), quiet, or PyTorch's (``dim=``, ``as_tuple=``, ...).
The meaning never changes with the warning: a NumPy program stays correct, and ``-W error`` finds
every line to look at.  Tensor's methods have PyTorch's meaning and never warn (``x.max(1)``).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

from ..backend import host_numpy
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from .scatter import host

__all__ = ["AmbiguousSpellingWarning", "said_out_loud", "TWO_MEANINGS"]


class AmbiguousSpellingWarning(UserWarning):
    """A call spelled alike in NumPy and PyTorch whose answers differ, answered with NumPy's meaning:
    the message says how to write either meaning without the warning."""


class TwoMeanings(NamedTuple):
    """How one function's ambiguous calls read: ``ambiguous(args, kwargs)`` tells such a call; the
    four strings fill the warning (``{call}`` is the function's name as the user wrote it)."""

    ambiguous: Callable[[tuple, dict], bool]
    numpy_answer: str
    torch_answer: str
    numpy_spelling: str
    torch_spelling: str


def _int_like(v: Any) -> bool:
    return isinstance(v, (int, host_numpy.integer)) and not isinstance(v, (bool, host_numpy.bool_))


def _dims_like(v: Any) -> bool:
    """An int, a list or tuple of ints, or None: a dim list, which PyTorch's reductions take positionally
    (``torch.var(x, None)`` is ``var(x)``, divided by ``n - 1``)."""
    return v is None or _int_like(v) or (isinstance(v, (list, tuple)) and all(_int_like(d) for d in v))


def _axis_or_nothing(says: tuple[str, ...], axis: Callable[[Any], bool] = _int_like) -> Callable[[tuple, dict], bool]:
    """Ambiguous: ``f(x)`` or ``f(x, a)`` where ``axis(a)``, with none of the keywords in ``says`` (each of
    which names one library's meaning)."""
    def ambiguous(args: tuple, kwargs: dict) -> bool:
        return len(args) <= 2 and (len(args) < 2 or axis(args[1])) and not any(k in kwargs for k in says)
    return ambiguous


def _positional_axis(says: tuple[str, ...]) -> Callable[[tuple, dict], bool]:
    """Ambiguous: ``f(x, int)`` with none of the keywords in ``says``."""
    def ambiguous(args: tuple, kwargs: dict) -> bool:
        return len(args) == 2 and _int_like(args[1]) and not any(k in kwargs for k in says)
    return ambiguous


def _without(says: tuple[str, ...], at_least: int) -> Callable[[tuple, dict], bool]:
    """Ambiguous: ``at_least`` positional arguments or more, none of the keywords in ``says``."""
    def ambiguous(args: tuple, kwargs: dict) -> bool:
        return len(args) >= at_least and not any(k in kwargs for k in says)
    return ambiguous


def _cross_ambiguous(args: tuple, kwargs: dict) -> bool:
    """``cross(a, b)``: NumPy's is along the last axis, PyTorch's along the first dim of size 3 (with
    its deprecation warning); the two differ where that dim is not the last.  ``cross(a, b, d)``:
    NumPy's ``d`` is ``axisa`` alone (``b``'s vectors, and the product, along the last axis), PyTorch's
    the dim of all three; the two differ where ``d`` is not the last axis."""
    if len(args) == 3 and not kwargs and _int_like(args[2]):
        ndim = len(getattr(args[0], "shape", ()))
        return -ndim <= args[2] < ndim and args[2] % ndim != ndim - 1
    if len(args) != 2 or kwargs:
        return False
    try:
        shape = host_numpy.broadcast_shapes(*(tuple(getattr(v, "shape", ())) for v in args))
    except ValueError:
        return False  # (refused later, in the words of the call's own checks)
    threes = [d for d, n in enumerate(shape) if n == 3]
    return bool(threes) and threes[0] != len(shape) - 1


def _nans(v: Any) -> int:
    """How many NaNs ``v`` (a tensor, an array, a number) holds: a few calls read NaN differently."""
    a = host(v) if isinstance(v, Tensor) else host_numpy.asarray(v)
    return int(host_numpy.isnan(a).sum()) if a.dtype.kind == "f" else 0


def _gradient_ambiguous(args: tuple, kwargs: dict) -> bool:
    """``gradient(f)`` of a 1-D ``f``: NumPy's answer is one tensor, PyTorch's a tuple holding it
    (``torch.gradient(f)[0]`` is the derivative, here its first element)."""
    says = ("axis", "spacing", "dim")
    return len(args) == 1 and len(getattr(args[0], "shape", ())) == 1 and not any(k in kwargs for k in says)


def _unique_ambiguous(args: tuple, kwargs: dict) -> bool:
    """``unique(x, True)``: NumPy's second argument is ``return_index`` (a pair), PyTorch's ``sorted`` (the
    values); and NumPy merges NaNs, PyTorch keeps each (the two differ where ``x`` holds two)."""
    if any(k in kwargs for k in ("return_index", "equal_nan", "sorted", "dim", "axis")):
        return False
    return bool(args) and ((len(args) >= 2 and bool(args[1])) or _nans(args[0]) > 1)


def _histogram_ambiguous(args: tuple, kwargs: dict) -> bool:
    """``histogram(x)``: NumPy's 10 bins, PyTorch's 100 (``weights=`` is NumPy's keyword, ``weight=``
    PyTorch's)."""
    return len(args) == 1 and not any(k in kwargs for k in ("bins", "weights", "weight"))


_PAIR = "the pair (values, indices)"
_MAX_MIN_SAY = ("axis", "dim", "keepdim", "out")
_SPREAD_SAY = ("axis", "ddof", "dim", "correction", "unbiased", "keepdim", "out", "dtype")
_MEDIAN_SAY = ("axis", "dim", "keepdim", "out", "overwrite_input")
_median_axis_or_nothing = _axis_or_nothing(_MEDIAN_SAY)


def _median_ambiguous(args: tuple, kwargs: dict) -> bool:
    """``median(x, d)``: one tensor, PyTorch's pair.  ``median(x)``: NumPy's mean of the two middle
    values, PyTorch's lower one -- the same answer for an odd count of floats (not of ints: NumPy's
    mean is a float, PyTorch's middle value keeps the int dtype)."""
    if not (args and _median_axis_or_nothing(args, kwargs)):
        return False
    shape, kind = getattr(args[0], "shape", None), getattr(getattr(args[0], "dtype", None), "kind", None)
    return len(args) == 2 or shape is None or kind != "f" or math.prod(shape) % 2 == 0


TWO_MEANINGS: dict[str, TwoMeanings] = {
    "max": TwoMeanings(_positional_axis(_MAX_MIN_SAY), "the maximum over that axis, one tensor", _PAIR,
                       "{call}(x, axis=1)", "{call}(x, dim=1) or x.max(1)"),
    "min": TwoMeanings(_positional_axis(_MAX_MIN_SAY), "the minimum over that axis, one tensor", _PAIR,
                       "{call}(x, axis=1)", "{call}(x, dim=1) or x.min(1)"),
    "sort": TwoMeanings(_axis_or_nothing(("axis", "kind", "order", "dim", "descending", "stable", "out")),
                        "the sorted values, one tensor", _PAIR, "{call}(x, axis=-1)", "{call}(x, dim=-1) or x.sort()"),
    "median": TwoMeanings(_median_ambiguous, "the mean of the two middle values (over an axis: one "
                          "tensor)", f"the lower middle value (over a dim: {_PAIR})", "{call}(x, axis=...)",
                          "{call}(x, dim=...) or x.median()"),
    "nanmedian": TwoMeanings(_axis_or_nothing(_MEDIAN_SAY), "the mean of the two middle numbers (over an axis: "
                             "one tensor)", f"the lower middle number (over a dim: {_PAIR})", "{call}(x, axis=...)",
                             "{call}(x, dim=...) or x.nanmedian()"),
    "var": TwoMeanings(_axis_or_nothing(_SPREAD_SAY, _dims_like), "the variance divided by n (ddof=0)",
                       "the variance divided by n - 1 (correction=1)", "{call}(x, ddof=0)",
                       "{call}(x, correction=1), {call}(x, dim=...) or x.var()"),
    "std": TwoMeanings(_axis_or_nothing(_SPREAD_SAY, _dims_like), "the standard deviation divided by n (ddof=0)",
                       "the standard deviation divided by n - 1 (correction=1)", "{call}(x, ddof=0)",
                       "{call}(x, correction=1), {call}(x, dim=...) or x.std()"),
    "nonzero": TwoMeanings(_without(("as_tuple", "out"), 1), "a tuple of index tensors, one per dim",
                           "one int64 tensor of shape (count, ndim)", "{call}(x, as_tuple=True)",
                           "{call}(x, as_tuple=False) or x.nonzero()"),
    "meshgrid": TwoMeanings(_without(("indexing",), 2), "grids indexed 'xy'", "grids indexed 'ij'",
                            "{call}(x, y, indexing='xy')", "{call}(x, y, indexing='ij')"),
    "split": TwoMeanings(_without(("axis", "dim", "split_size_or_sections"), 2),
                         "that many equal pieces (a list: the pieces between those split points)",
                         "pieces of that size (a list: pieces of those sizes)", "{call}(x, 3, axis=0)",
                         "{call}(x, 3, dim=0) or x.split(3)"),
    "equal": TwoMeanings(_without(("out", "where", "dtype", "casting"), 2), "elementwise ==, a tensor of bools",
                         "one bool: whether the shapes and all the values agree", "mg.eq(a, b) or a == b",
                         "a.equal(b)"),
    "cross": TwoMeanings(_cross_ambiguous, "the product along the last axis (a third argument: a's axisa, b's "
                         "vectors and the product along the last)", "the product along the first dim of size 3 (a "
                         "third argument: the dim of all three)", "{call}(a, b, axis=-1) or {call}(a, b, axisa=0)",
                         "{call}(a, b, dim=...)"),
    "gradient": TwoMeanings(_gradient_ambiguous, "one tensor (for a 1-D input)", "a tuple holding that tensor",
                            "{call}(f, axis=0)", "{call}(f, spacing=1) or {call}(f, dim=0)"),
    "histogram": TwoMeanings(_histogram_ambiguous, "10 bins", "100 bins", "{call}(x, bins=10)",
                             "{call}(x, 100) or x.histogram()"),
    "unique": TwoMeanings(_unique_ambiguous, "NaNs merged into one value; a true second argument is return_index "
                          "(a pair: the values and where each first occurs)", "each NaN its own value; a second "
                          "argument is sorted (the values alone)", "{call}(x, return_index=True) or "
                          "{call}(x, equal_nan=True)", "{call}(x, sorted=True) or x.unique()"),
}


def said_out_loud(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``mg.<name>``, ``function``, warning at the user's line where the call is one of ``name``'s
    ambiguous ones (:data:`TWO_MEANINGS`)."""
    meanings = TWO_MEANINGS[name]

    @functools.wraps(function)
    def numpy_meaning(*args: Any, **kwargs: Any) -> Any:
        if meanings.ambiguous(args, kwargs):
            _warn(f"mg.{name}", meanings)
        return function(*args, **kwargs)

    return numpy_meaning


def _warn(call: str, m: TwoMeanings) -> None:
    torch_call = "torch." + call[3:]
    warnings.warn(
        f"{call} reads this call as NumPy does: {m.numpy_answer}; {torch_call} would answer {m.torch_answer}. "
        f"Write {m.numpy_spelling.format(call=call)} for NumPy's answer or {m.torch_spelling.format(call=call)} "
        f"for PyTorch's; either quiets this warning", AmbiguousSpellingWarning,
        stacklevel=stacklevel_outside_the_engine())
