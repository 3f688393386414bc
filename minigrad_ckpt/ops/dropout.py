"""Dropout with its randomness recorded on the tape.

The op's ``key`` attribute is drawn from the engine generator when the op is
built (``nn.functional.dropout``).  The keep-mask is a pure function of that
key (:func:`minigrad_ckpt.random.bernoulli_keep`), so backward regenerates it
instead of storing it, and a checkpoint replay reproduces it bit for bit.
"""

from __future__ import annotations

from ..backend import register_kernel
from ..random import bernoulli_keep, uniform
from .elementwise import UnaryElementwise


class Dropout(UnaryElementwise):
    """Zero each element with probability ``p``; scale the rest by ``1 / (1 - p)``."""

    p: float
    key: int

    save_inputs = False

    def forward(self, xp, x):
        return x * xp.keep_mask(x, self.key, self.p) * (1.0 / (1.0 - self.p))

    def times_derivative(self, xp, v, out, x):
        # the same mask (from the key) and scale as forward: nothing was saved
        return v * xp.keep_mask(v, self.key, self.p) * (1.0 / (1.0 - self.p))

    def reference(self, np, x):
        from ..backend import numpy_namespace

        mask = bernoulli_keep(numpy_namespace, self.key, x.shape, self.p)
        return x * mask * (1.0 / (1.0 - self.p))


@register_kernel
def keep_mask(xp, like, key, p):
    """The dropout keep-mask for ``like``'s shape: True with probability ``1 - p``."""
    return bernoulli_keep(xp, key, like.shape, p)


class AddGumbel(UnaryElementwise):
    """``x + g``, ``g = -log(-log(1 - u))`` Gumbel noise with ``u`` uniform from ``key``
    (``nn.functional.gumbel_softmax``'s perturbation).

    The noise is a pure function of the key, as a dropout mask is: the tape keeps
    the key, not a noise array the size of ``x`` -- which a checkpoint would have
    to keep to replay the sum, where a plain run keeps nothing.
    """

    key: int

    save_inputs = False

    def forward(self, xp, x):
        u = uniform(xp, self.key, x.shape, x.dtype)
        return x + -xp.log(-xp.log1p(-u))  # E = -log(1 - u) > 0

    def derivative(self, xp, out, x):
        return 1

    def reference(self, np, x):
        from ..backend import numpy_namespace

        u = uniform(numpy_namespace, self.key, x.shape, x.dtype)
        return x + -np.log(-np.log1p(-u))
