"""Einsum's subscript parser: NumPy's notation turned into one explicit form."""

from __future__ import annotations

from .errors import InputMismatch

__all__ = ["explicit_einsum"]


def explicit_einsum(subscripts: str, shapes: list[tuple[int, ...]]) -> str:
    """``subscripts`` in explicit form for operands of ``shapes``: ``...`` spelled
    out with spare letters and the output given (``"ij,jk"`` -> ``"ij,jk->ik"``).

    The explicit form is what the ``Einsum`` op records, so a tape never
    depends on NumPy's implicit-output rule.  Bad subscripts and rank
    mismatches are a ValueError naming the operand; a subscript repeated
    within an operand over unequal sizes is PyTorch's RuntimeError (NumPy
    lets a size 0 through and returns uninitialized memory).
    """
    s = subscripts.replace(" ", "")
    ins, arrow, out = s.partition("->")
    specs = ins.split(",")
    if len(specs) != len(shapes):
        raise ValueError(f"einsum: {len(specs)} operand subscripts for {len(shapes)} operands")
    for spec in specs + [out]:
        bad = [c for c in spec.replace("...", "") if not c.isalpha()]
        if bad:
            raise ValueError(f"einsum: invalid subscript characters {bad} in {subscripts!r}")
    used = set("".join(specs + [out]).replace(".", ""))
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    ell_ndim = 0
    for spec, shape in zip(specs, shapes):
        named = len(spec.replace("...", ""))
        if "..." in spec:
            ell_ndim = max(ell_ndim, len(shape) - named)
        elif named != len(shape):
            raise ValueError(
                f"einsum: operand with subscripts {spec!r} has {len(shape)} dimensions"
            )
    ell = "".join(spare[:ell_ndim])
    new_specs = []
    for spec, shape in zip(specs, shapes):
        if "..." in spec:
            k = len(shape) - len(spec.replace("...", ""))
            spec = spec.replace("...", ell[ell_ndim - k:] if k else "")
        _check_repeated(spec, shape, len(new_specs))
        new_specs.append(spec)
    if arrow:
        out = out.replace("...", ell)
    else:
        counts: dict[str, int] = {}
        for c in "".join(s for s in new_specs):
            counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    return ",".join(new_specs) + "->" + out


def _check_repeated(spec: str, shape: tuple[int, ...], k: int) -> None:
    """Refuse operand ``k`` where a subscript it repeats (``"ii"``: a diagonal) spans unequal sizes,
    in PyTorch's words (the later size first)."""
    first: dict[str, int] = {}
    for c, n in zip(spec, shape):
        if first.setdefault(c, n) != n:
            raise InputMismatch(f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't match, "
                                f"{n} != {first[c]}")
