"""The einops pattern language of :func:`minigrad_ckpt.func.rearrange` (``"b (h w) c -> b c h w"``): a side parsed
into its axes, and the checks that make a pair of sides a rearrangement -- with PyTorch's words for each refusal
(``torch.func.rearrange``'s parser, functorch.einops._parsing, adapted from einops; MIT, Alex Rogozhnikov).

A side's ``composition`` lists one entry per tensor dimension: the list of names grouped into it (``[]`` for a
``1`` or ``()``: a dimension of size one), or :data:`ELLIPSIS` for the dimensions ``...`` stands for."""

from __future__ import annotations

import keyword
import warnings
from collections.abc import Mapping

from ..user_frame import stacklevel_outside_the_engine

#: ``...`` as one character, so a name never holds it; the refusals name it so, as PyTorch's do
ELLIPSIS = "\u2026"


class Side:
    """One side of a pattern: its ``composition``, its ``names`` (a set; :data:`ELLIPSIS` among them when it
    has ``...``), and the facts the checks read."""

    def __init__(self, expression: str) -> None:
        self.has_ellipsis = False
        self.ellipsis_in_brackets: bool | None = None
        self.has_numbered_axes = False  # a 2, 3, ...: rearrange refuses them (only 1 is a size it knows)
        self.names: set[str] = set()
        self.composition: list[list[str] | str] = []
        if "." in expression:
            if "..." not in expression:
                raise ValueError("Expression may contain dots only inside ellipsis (...)")
            if expression.count("...") != 1 or expression.count(".") != 3:
                raise ValueError("Expression may contain dots only inside ellipsis (...); "
                                 "only one ellipsis for tensor ")
            expression = expression.replace("...", ELLIPSIS)
            self.has_ellipsis = True
        self._read(expression)

    def _read(self, expression: str) -> None:
        group: list[str] | None = None  # the bracket being read
        word = ""
        for char in expression:
            if char in "() ":
                if word:
                    self._add(word, group)
                word = ""
                if char == "(":
                    if group is not None:
                        raise ValueError("Axis composition is one-level (brackets inside brackets not allowed)")
                    group = []
                elif char == ")":
                    if group is None:
                        raise ValueError("Brackets are not balanced")
                    self.composition.append(group)
                    group = None
            elif char.isalnum() or char in ("_", ELLIPSIS):
                word += char
            else:
                raise ValueError(f"Unknown character '{char}'")
        if group is not None:
            raise ValueError(f"Imbalanced parentheses in expression: '{expression}'")
        if word:
            self._add(word, None)

    def _add(self, word: str, group: list[str] | None) -> None:
        if word in self.names:
            raise ValueError(f"Indexing expression contains duplicate dimension '{word}'")
        if word == ELLIPSIS:
            self.names.add(ELLIPSIS)
            self.ellipsis_in_brackets = group is not None
            (self.composition if group is None else group).append(ELLIPSIS)
            return
        if word.isdecimal():
            if int(word) == 1:  # a dimension of size one; inside brackets it changes no size
                if group is None:
                    self.composition.append([])
                return
            self.has_numbered_axes = True  # (rearrange refuses it once both sides are read, as PyTorch)
            if int(word) < 1:
                raise ValueError(f"Anonymous axis should have positive length, not {int(word)}")
            return
        _check_name(word)
        self.names.add(word)
        if group is None:
            self.composition.append([word])
        else:
            group.append(word)


def _check_name(name: str) -> None:
    """Refuse a name that is not a Python identifier or starts or ends with ``_``; warn of a keyword or ``axis``."""
    if not name.isidentifier():
        raise ValueError(f"Invalid axis identifier: {name}\nnot a valid python identifier")
    if name[0] == "_" or name[-1] == "_":
        raise ValueError(f"Invalid axis identifier: {name}\naxis name should should not start or end with underscore")
    if keyword.iskeyword(name):
        warnings.warn(f"It is discouraged to use axes names that are keywords: {name}", RuntimeWarning,
                      stacklevel=stacklevel_outside_the_engine())
    if name == "axis":
        warnings.warn("It is discouraged to use 'axis' as an axis name and will raise an error in future",
                      FutureWarning, stacklevel=stacklevel_outside_the_engine())


def parse_rearrangement(pattern: str, axes_lengths: Mapping[str, int]) -> tuple[Side, Side]:
    """The two sides of ``pattern``, checked as a rearrangement with ``axes_lengths``, in PyTorch's order."""
    try:
        left_text, right_text = pattern.split("->")
    except ValueError:
        raise ValueError("Pattern must contain a single '->' separator") from None
    if ELLIPSIS in axes_lengths:
        raise ValueError(f"'{ELLIPSIS}' is not an allowed axis identifier")
    left, right = Side(left_text), Side(right_text)
    if not left.has_ellipsis and right.has_ellipsis:
        raise ValueError(f"Ellipsis found in right side, but not left side of a pattern {pattern}")
    if left.has_ellipsis and left.ellipsis_in_brackets:
        raise ValueError(f"Ellipsis is parenthesis in the left side is not allowed: {pattern}")
    for length in axes_lengths.values():
        if type(length) is not int:
            raise TypeError(f"rearrange axis lengths must be integers, got: {type(length)}")
    if left.has_numbered_axes or right.has_numbered_axes:
        raise ValueError("rearrange only supports unnamed axes of size 1")
    one_sided = left.names ^ right.names
    if one_sided:
        raise ValueError(f"Identifiers only on one side of rearrange expression (should be on both): {one_sided}")
    unknown = axes_lengths.keys() - left.names
    if unknown:
        raise ValueError(f"Identifiers not found in rearrange expression: {unknown}")
    return left, right
