"""PyTorch's deprecated top-level LU and triangular solves, which PyTorch 2.13 still runs:
``torch.lu``, ``torch.lu_solve`` and ``torch.triangular_solve``.

Older flow libraries call them (nflows' ``NaiveLinear`` inverts with ``torch.lu`` and
``torch.lu_solve``; normflows' ``LULinearPermute`` inverts with ``torch.triangular_solve``), so
a renamed program needs them to answer as there.  Each is a thin composition of ``mg.linalg``'s
current function, with the older argument order: the right-hand side comes *first*
(``lu_solve(b, LU, pivots)``, ``triangular_solve(b, A)``), where ``linalg`` takes it last.
Gradients come with the ``linalg`` parts.  Their documentation calls it ``b``, but the keyword
PyTorch takes is ``input`` (``torch.triangular_solve(input=b, A=A)``), so it is here.

Each is a Tensor method too (``A.lu()``, ``b.lu_solve(LU, pivots)``, ``b.triangular_solve(A)``), as
in PyTorch 2.13.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..backend import scalar_type_name
from ..tensor import Tensor
from . import linalg as _la
from . import linalg_derived as _lad
from . import linalg_ex as _lax
from .arguments import as_tensor
from .conversion import clone
from .errors import InputMismatch
from .return_types import return_type

__all__ = ["lu", "lu_solve", "triangular_solve"]


class LUWithInfo(NamedTuple):
    LU: Tensor
    pivots: Tensor
    info: Tensor


class TriangularSolveResult(NamedTuple):
    solution: Tensor
    cloned_coefficient: Tensor


_lu_with_info = return_type(LUWithInfo, "_lu_with_info")
_triangular_solve = return_type(TriangularSolveResult, "triangular_solve")


def lu(A: Any, pivot: bool = True, get_infos: bool = False) -> Any:  # noqa: N803 -- PyTorch's name
    """``(A_LU, pivots)``: the packed LU factorization of each matrix of ``A`` (any ``m x n``) and
    its 1-based int32 row swaps, as ``mg.linalg.lu_factor`` gives them (PyTorch's deprecated
    ``torch.lu``; ``mg.lu_unpack`` gives ``P, L, U``).  A singular matrix factors without an error,
    as PyTorch's: ``get_infos=True`` adds ``info``, its first zero pivot (0 when none)."""
    packed, pivots, info = _lax.lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return _lu_with_info(packed, pivots, info)
    return packed, pivots  # a plain tuple, as torch.lu's


def lu_solve(input: Any, LU_data: Any, LU_pivots: Any) -> Tensor:  # noqa: A002, N803 -- PyTorch's names
    """``X`` with ``A X = b`` from ``mg.lu(A)``'s ``(LU_data, LU_pivots)``, ``b`` given as ``input``
    (PyTorch's deprecated ``torch.lu_solve``: ``b`` first, where ``mg.linalg.lu_solve(LU, pivots, B)``
    takes it last)."""
    return _lad.lu_solve(LU_data, LU_pivots, input)


def triangular_solve(input: Any, A: Any, upper: bool = True, transpose: bool = False,  # noqa: A002, N803
                     unitriangular: bool = False) -> TriangularSolveResult:
    """``(solution, cloned_coefficient)``: ``X`` with ``T X = b`` for the upper (or, ``upper=False``,
    lower) triangle ``T`` of ``A`` -- ``T^T X = b`` with ``transpose`` -- and a copy of ``A``
    (PyTorch's deprecated ``torch.triangular_solve``; ``b`` first, and upper by default, where
    ``mg.linalg.solve_triangular(A, B, upper=...)`` asks).  ``unitriangular`` takes the
    diagonal as ones.  Both answers carry gradients to ``A`` (the solution's to the triangle read).
    ``b`` (``input``) and ``A`` are matrices or stacks of them, as PyTorch's (``mg.linalg.solve_triangular``,
    SciPy's signature, takes a vector ``b`` too)."""
    b, A = as_tensor(input), as_tensor(A)
    for name, t in (("b", b), ("A", A)):
        if t.ndim < 2:
            raise InputMismatch(f"torch.triangular_solve: Expected {name} to have at least 2 dimensions, but it has "
                                f"{t.ndim} dimensions instead")
    if b.dtype != A.dtype:  # PyTorch's check, before any promotion could hide the mismatch
        raise InputMismatch(f"Expected b and A to have the same dtype, but found b of type "
                            f"{scalar_type_name(b.dtype)} and A of type {scalar_type_name(A.dtype)} instead.")
    coefficient = A.mT if transpose else A  # T^T's triangle is the other one
    solution = _la.solve_triangular(coefficient, b, upper=bool(upper) != bool(transpose),
                                    unitriangular=bool(unitriangular))
    return _triangular_solve(solution, clone(A))

