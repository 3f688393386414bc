"""Correctness tools for your own functions, the ones our test suite uses.

* :func:`assert_close` -- PyTorch's ``torch.testing.assert_close``: tensors, arrays, numbers and
  their lists and dicts close within the dtype's tolerances, with its messages (and its deprecated
  :func:`assert_allclose`); :func:`make_tensor`,
  PyTorch's ``torch.testing.make_tensor``: random values of a dtype for a test.
* :func:`gradcheck` / :func:`gradgradcheck` -- analytic vs finite-difference
  derivatives (first and second order), of backward and of forward mode
  (``modes=("rev", "fwd")``, with the dot-product test between the two).
* :func:`check_op` -- the battery the registry runs on every built-in op
  (forward vs reference, gradcheck, gradgradcheck with zero cotangents, the
  Hessian's symmetry through a zero cotangent, non-contiguous inputs, float32,
  no mutation, no aliasing), for your own op; :class:`Draws` is where its
  random material comes from (the registry's battery draws it with Hypothesis).
* ``minigrad_ckpt.testing.strategies`` -- Hypothesis strategies for tensors,
  broadcastable shapes, axes and indices (needs ``pip install hypothesis``;
  imported on first use so the package itself does not depend on it).

Example::

    from hypothesis import given
    import minigrad_ckpt as mg
    from minigrad_ckpt.testing import gradcheck, strategies as mst

    @given(mst.tensors(dtype="float64", requires_grad=True))
    def test_my_softplus(x):
        assert gradcheck(lambda t: mg.log1p(mg.exp(t)), x)
"""

from __future__ import annotations

import importlib
from typing import Any

from .check_op import Draws, OpCheckError, check_op
from .comparison import assert_allclose, assert_close
from .gradcheck import (
    ForwardModeNotCheckedWarning,
    GradcheckError,
    GradcheckKinkWarning,
    analytical_jacobian,
    forward_jacobian,
    gradcheck,
    gradgradcheck,
    numerical_jacobian,
)
from .make_tensor import make_tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "ForwardModeNotCheckedWarning", "GradcheckKinkWarning",
           "numerical_jacobian",
           "analytical_jacobian", "forward_jacobian", "check_op", "OpCheckError", "Draws", "strategies", "assert_close",
           "assert_allclose", "make_tensor"]


def __getattr__(name: str) -> Any:
    if name == "strategies":
        try:
            return importlib.import_module(".strategies", __name__)
        except ImportError as exc:
            raise ImportError(
                "minigrad_ckpt.testing.strategies needs Hypothesis: pip install hypothesis "
                "(or pip install 'minigrad-ckpt[test]')"
            ) from exc
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
