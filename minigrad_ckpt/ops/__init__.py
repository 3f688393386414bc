"""Every differentiable operation, one small class each, and the registry.

Importing this package registers all ops; :data:`registry` maps each op's
name to its class.  Read :mod:`.base` first: it states the op contract.
"""

from . import comparison, device, elementwise, indexing, linalg, reduction, shape  # noqa: F401
from .base import Op, get_op, registry

__all__ = ["Op", "registry", "get_op"]
