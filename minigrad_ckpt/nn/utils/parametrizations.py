"""PyTorch's ``nn.utils.parametrizations``: ``weight_norm`` and ``spectral_norm`` as
parametrizations (:mod:`.parametrize`) -- the forms PyTorch now recommends over the hook-based
ones of :mod:`.weight_norm` and :mod:`.spectral_norm`. State dict keys are PyTorch's:
``parametrizations.weight.original0``/``original1`` (g, v) and ``parametrizations.weight.original``
with the buffers ``parametrizations.weight.0._u``/``_v``.
"""

from __future__ import annotations

from ...grad_mode import no_grad
from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from .parametrize import register_parametrization
from .spectral_norm import _default_dim, random_unit
from .weight_norm import norm_except_dim

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


class _WeightNorm(Module):
    """``(g, v) -> g * v / ||v||``; its right inverse splits a weight into its norm and itself."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / norm_except_dim(weight_v, 2, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """``module.<name> = g * v / ||v||`` with ``g`` (``original0``) and ``v`` (``original1``)
    trained; ``dim`` as in the hook-based :func:`minigrad_ckpt.nn.utils.weight_norm`."""
    register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_old_keys(state_dict: dict, prefix: str, *_: object) -> None:
        # a state dict of the hook-based weight_norm (``weight_g``/``weight_v``) loads, as PyTorch's
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(load_old_keys)
    return module


class _SpectralNorm(Module):
    """``W -> W / sigma(W)``, ``sigma`` by power iteration on the buffers ``_u``, ``_v`` (refined
    in place in training mode; 15 steps at creation), PyTorch's parametrization: ``sigma = u^H W v``
    with ``W^H`` in the iteration, so a complex ``W`` is divided by its (real) largest singular value.
    A 1-D weight is just normalized (its spectral norm is its 2-norm)."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim, self.eps = dim % ndim, eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            h, w = self._reshape_weight_to_matrix(weight).shape
            self.register_buffer("_u", random_unit(h, weight, eps))
            self.register_buffer("_v", random_unit(w, weight, eps))
            self._power_method(self._reshape_weight_to_matrix(weight), 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.reshape(weight.shape[0], -1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with no_grad():  # u first, then v: this form's order (the hook-based one does v first)
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.mH.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # copies, so a later forward's in-place refinement leaves this one's backward alone
        u, v = self._u.clone(), self._v.clone()
        # u^H W v, real for a complex W too (PyTorch's vdot; the hook-based form's dot is not)
        return weight / u.vdot(weight_mat.mv(v))

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """``module.<name> = W / sigma(W)`` as a parametrization (``original`` is ``W``); arguments as the
    hook-based :func:`minigrad_ckpt.nn.utils.spectral_norm`."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    dim = _default_dim(module) if dim is None else dim
    return register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of ``a``'s QR with the signs of R's diagonal folded in (PyTorch's ``_make_orthogonal``:
    LAPACK's Householder QR, so the same Q as its ``geqrf`` + ``householder_product``)."""
    from ...linalg import qr

    q, r = qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _is_orthogonal(q: Tensor) -> bool:
    """Whether ``q^H q`` is the identity to PyTorch's tolerance: ``allclose`` with ``atol = 10 n eps``
    and its default ``rtol = 1e-5`` (so a diagonal within 1e-5 of 1 passes: such a ``q`` is kept as
    given, not replaced by its QR's ``Q``)."""
    from ...backend import host_numpy
    from ...functional.diagonal import eye

    n, k = q.shape[-2], q.shape[-1]
    atol = 10 * n * float(host_numpy.finfo(q.dtype).eps)
    identity = eye(k, dtype=q.dtype, device=q.device)
    return bool(((q.mH @ q - identity).abs() <= atol + 1e-5 * identity.abs()).all().item())


class _Orthogonal(Module):
    """``original -> Q`` orthogonal (unitary): ``base @ map(original)``, ``map`` the matrix exponential
    or Cayley transform of the skew part of the lower triangle, or a product of Householder
    reflections; ``base`` (a buffer) is where assignment puts the value, PyTorch's trivialization."""

    def __init__(self, weight: Tensor, orthogonal_map: str) -> None:
        super().__init__()
        if weight.dtype.kind == "c" and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape, self.orthogonal_map = tuple(weight.shape), orthogonal_map
        self.register_buffer("base", None)

    def forward(self, x: Tensor) -> Tensor:
        from ...linalg import householder_product

        n, k = x.shape[-2], x.shape[-1]
        transposed = n < k
        if transposed:
            x, n, k = x.mT, k, n
        if self.orthogonal_map == "householder":
            a = x.tril(-1)
            q = householder_product(a, 2.0 / (1.0 + (a * a).sum(-2)))
            # the signs as integers (PyTorch's .int(): |d| < 1 gives 0), multiplied in q's dtype
            q = q * x.diagonal(dim1=-2, dim2=-1).int().to(q.dtype).unsqueeze(-2)
        else:
            q = self._skew_map(x, n, k)
        q = self.base @ q
        return q.mT if transposed else q

    def _skew_map(self, x: Tensor, n: int, k: int) -> Tensor:
        from ...creation import zeros
        from ...functional.diagonal import eye
        from ...functional.shape import concatenate
        from ...linalg import matrix_exp, solve

        x = x.tril()
        if n != k:
            x = concatenate([x, zeros(*x.shape[:-2], n, n - k, dtype=x.dtype, device=x.device)], -1)
        a = x - x.mH
        if self.orthogonal_map == "matrix_exp":
            q = matrix_exp(a)
        else:  # Cayley: (I - A/2)^{-1} (I + A/2)
            ident = eye(n, dtype=a.dtype, device=a.device)
            q = solve(ident - 0.5 * a, ident + 0.5 * a)
        return q[..., :k] if n != k else q

    def right_inverse(self, q: Tensor) -> Tensor:
        """Store ``q`` (made orthogonal by QR if it is not; a tall one completed with random
        columns) as ``base`` and return the original that maps to the identity: ``-I``."""
        from ...creation import randn, zeros
        from ...functional.shape import concatenate

        if tuple(q.shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape "
                             f"{tuple(q.shape)}.")
        q_init, (n, k) = q, q.shape[-2:]
        if n < k:
            q, n, k = q.mT, k, n
        with no_grad():
            if n == k:
                q = q.clone() if _is_orthogonal(q) else _make_orthogonal(q)
            else:
                extra = randn(*q.shape[:-2], n, n - k, dtype=q.dtype, device=q.device)
                q = _make_orthogonal(concatenate([q, extra], -1))
            self.base = q
            neg_identity = zeros(*q_init.shape, dtype=q_init.dtype, device=q_init.device)
            neg_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_identity


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Keep ``module.<name>`` (a matrix or batch of them) orthogonal -- unitary if complex -- as
    PyTorch's parametrization: ``orthogonal_map`` is ``"matrix_exp"`` (default for square or
    complex), ``"cayley"`` or ``"householder"`` (default otherwise). The weight starts as the
    orthogonal matrix nearest in QR's sense to the current one, and assigning to it stores the
    (orthogonalized) value. Only ``use_trivialization=True`` is offered."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if not use_trivialization:
        raise NotImplementedError("orthogonal(use_trivialization=False) is not offered (it needs geqrf)")
    n, k = weight.shape[-2], weight.shape[-1]
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if n == k or weight.dtype.kind == "c" else "householder"
    if orthogonal_map not in ("matrix_exp", "cayley", "householder"):
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    return register_parametrization(module, name, _Orthogonal(weight, orthogonal_map), unsafe=True)
