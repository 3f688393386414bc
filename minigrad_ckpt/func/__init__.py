"""Function transforms (JAX / ``torch.func`` style) and true forward-mode AD.

    import minigrad_ckpt as mg

    def f(x):
        return mg.sin(x) * x

    x = mg.tensor([0.5, 1.0, 2.0], dtype="float64")
    y, dy = mg.func.jvp(f, (x,), (mg.ones_like(x),))   # forward mode: J @ v in one pass
    g = mg.func.grad(lambda x: f(x).sum())(x)            # reverse mode
    H = mg.func.hessian(lambda x: f(x).sum())(x)         # forward-over-reverse, shape (3, 3)

``jvp`` pushes tangents through the ops' ``jvp`` rules beside the values
(:mod:`.forward`, dual numbers); the reverse-mode transforms run the tape's
backward.  ``docs/forward-mode.md`` teaches both and when to use which.
"""

from __future__ import annotations

from ..grad_mode import forward_mode as _forward_mode
from .einops_rearrange import rearrange
from .inplace import tangents_after_write as _tangents_after_write
from .module_call import functional_call, replace_all_batch_norm_modules_, stack_module_state
from .transforms import (
           debug_unwrap,
           functionalize,
           grad,
           grad_and_value,
           hessian,
           hvp,
           jacfwd,
           jacobian,
           jacrev,
           jvp,
           linearize,
           value_and_grad,
           vjp,
)
from .vmap import vmap

_forward_mode.written = _tangents_after_write  # in-place writes carry tangents (see .inplace)

__all__ = ["jvp", "vjp", "grad", "value_and_grad", "grad_and_value", "jacfwd", "jacrev", "jacobian", "hessian",
           "hvp", "linearize", "functional_call", "vmap", "stack_module_state",
           "replace_all_batch_norm_modules_", "functionalize", "debug_unwrap", "rearrange"]
