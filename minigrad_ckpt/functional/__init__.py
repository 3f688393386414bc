"""The public math API (``mg.exp``, ``mg.sum``, ``mg.matmul``, ...) and what it is made of.

``minigrad_ckpt.functional`` exposes every name below; each idea lives in a
module of its own:

=======================  ==================================================
``arguments``            argument normalization: tensor-likes, weak scalars,
                         ``axis=`` and ``shape=`` into static attributes
``elementwise``          arithmetic, exponentials, trigonometry, rounding
``comparison``           comparisons and tests (no gradient)
``reduction``            sums, means, extrema, variance, scans, ``argmax``
``conversion``           ``astype``, ``clone``, ``to_device``
``shape``                reshapes, transposes, joins, splits, padding
``indexing``             ``x[index]``, its adjoint, gathers, sorting
``diagonal``             diagonals, traces, triangles, ``eye``
``products``             ``matmul``, ``einsum``, ``tensordot`` and friends
``math``                 all of the eight above in one namespace
``einsum_subscripts``    einsum's subscript parser
``linalg``               ``mg.linalg``'s functions (``xp.linalg`` of the
                         differentiable namespace)
``complex_numbers``      ``real``, ``imag``, ``conj``, ``complex``: complex numbers
``fft``                  ``mg.fft``'s functions (``xp.fft`` of the
                         differentiable namespace)
``special``              ``mg.special``'s functions (SciPy's names, no SciPy)
``namespace``            the differentiable namespace backward runs on for
                         higher-order gradients (math + constants + kernels)
``public_names``         the table of public names: each function and
                         Tensor method declared once; the exports, Tensor's
                         methods and docs/api.md are read off it, and its
                         :func:`bind` is the package's one binding point
``out_rules``            PyTorch's ``out=`` dtype rules that are a function's
                         own (its words, several results, the call's)
``tensor_methods``       Tensor's operators, ``backward`` and conversions
``torch_methods``        Tensor's methods with PyTorch's meaning
``torch_idioms``         PyTorch's spellings: ``dim=``/``keepdim=``, ``cat``,
                         ``max(dim=)`` -> (values, indices), ``view``, ...
=======================  ==================================================
"""

from __future__ import annotations

from ..tensor import normalize_index
from . import arguments, complex_numbers, einsum_subscripts, fft, math, namespace, shared_memory, tensor_methods  # noqa: F401
from .arguments import as_tensor as _tensor  # noqa: F401
from .arguments import binary as _binary  # noqa: F401
from .arguments import broadcast_shapes as _broadcast_shapes  # noqa: F401
from .arguments import check_nonempty as _check_nonempty  # noqa: F401
from .arguments import normalize_axis  # noqa: F401
from .arguments import one_axis as _one_axis  # noqa: F401
from .arguments import operand as _operand  # noqa: F401
from .arguments import shape_arg as _shape_arg  # noqa: F401
from .arguments import tensor_list as _tensor_list  # noqa: F401
from .complex_numbers import *  # noqa: F403
from .complex_numbers import __all__ as _complex_names
from .einsum_subscripts import explicit_einsum as _explicit_einsum  # noqa: F401
from .math import *  # noqa: F403
from .math import __all__ as _math_names
from .namespace import *  # noqa: F403  (constants, dtype names, kernel twins)
from .namespace import __all__ as _namespace_names
from .torch_idioms import *  # noqa: F403  (dim=/keepdim= and PyTorch's names, over the plain ones)
from .torch_idioms import __all__ as _idiom_names

# The ``_``-prefixed aliases are names the single-module ``functional`` had;
# kept so that code written against them keeps working.
_normalize_index = normalize_index

__all__ = sorted(set(_math_names) | set(_complex_names) | set(_namespace_names) | set(_idiom_names)
                 | {"normalize_axis", "normalize_index"})
