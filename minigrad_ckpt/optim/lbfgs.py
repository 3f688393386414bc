"""L-BFGS: a quasi-Newton method that re-evaluates the loss through a closure, with
PyTorch's iteration, stopping rules and optional strong-Wolfe line search.

Every parameter is seen as one flat vector ``x``.  Each iteration builds a search direction
``d`` from the last ``history_size`` pairs (step ``s``, change of gradient ``y``) by the
two-loop recursion, then either takes the step ``t * d`` (``t = lr``; on the very first
iteration ``min(1, 1 / |g|_1) * lr``) or searches ``t`` for the strong Wolfe conditions by
bracketing and cubic interpolation (Nocedal and Wright, algorithms 3.5 and 3.6; PyTorch
follows minFunc).  The state is plain data -- vectors as tensors, lists of them, numbers --
so a snapshot resumes it bit for bit.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from typing import Any

from ..backend import host_numpy, to_host
from ..functional.arguments import number
from ..grad_mode import enable_grad, no_grad
from ..tensor import Tensor
from ._common import as_one_value, check_lr_elements
from .optimizer import Optimizer

__all__ = ["LBFGS"]



def _scalar(a: Any) -> Any:
    """A 0-d array (a norm, a dot product) as a NumPy scalar of its own dtype for the search's decisions:
    one explicit read of device memory, which ``float(a)`` would do implicitly (the strict device refuses
    that, as it stands for a GPU's hidden synchronizations).  Not a Python float: PyTorch's search keeps
    these as 0-d tensors of the parameters' dtype, so with float32 parameters its Armijo and curvature
    tests, its cubic interpolation and the step it finds are float32 arithmetic (a Python number beside
    them taken in float32, as NumPy's scalars take one), and a float64 reading decides otherwise near
    convergence."""
    return host_numpy.asarray(to_host(a))[()]

def cubic_minimum(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                  bounds: tuple[float, float] | None = None) -> float:
    """The minimiser of the cubic through ``(x1, f1, g1)`` and ``(x2, f2, g2)``, clipped to
    ``bounds`` (default: between the two points); their midpoint if the cubic has none."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (lo + hi) / 2.0
    # a dtype scalar's root as PyTorch's 0-d tensor's sqrt() (correctly rounded), not pow in its dtype
    d2 = host_numpy.sqrt(d2_square) if isinstance(d2_square, host_numpy.generic) else d2_square ** 0.5
    if x1 <= x2:
        pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return builtins.min(builtins.max(pos, lo), hi)


class _Bracket:
    """The interval a strong-Wolfe search narrows: step sizes with their loss, gradient and
    directional derivative."""

    def __init__(self, points: list[tuple[float, float, Any, float]]) -> None:
        self.t = [p[0] for p in points]
        self.f = [p[1] for p in points]
        self.g = [p[2] for p in points]
        self.gtd = [p[3] for p in points]

    def order(self) -> tuple[int, int]:
        return (0, 1) if self.f[0] <= self.f[-1] else (1, 0)

    def put(self, i: int, t: float, f: float, g: Any, gtd: float) -> None:
        self.t[i], self.f[i], self.g[i], self.gtd[i] = t, f, g, gtd


def strong_wolfe(evaluate: Callable[[float], tuple[float, Any]], t: float, d: Any, f: float, g: Any, gtd: float,
                 c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9,
                 max_ls: int = 25) -> tuple[float, Any, float, int]:
    """A step size ``t`` along ``d`` meeting the strong Wolfe conditions (sufficient decrease
    ``c1``, curvature ``c2``); returns ``(loss, gradient, t, evaluations)``."""
    d_norm = _scalar(abs(d).max())
    f_new, g_new = evaluate(t)
    evals, gtd_new = 1, _scalar(g_new.dot(d))
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    bracket, done, it = None, False, 0
    while it < max_ls:  # phase 1: grow t until an interval holds a point meeting the conditions
        sufficient = not (f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev))
        if sufficient and abs(gtd_new) <= -c2 * gtd:
            bracket, done = _Bracket([(t, f_new, g_new, gtd_new)]), True
            break
        if not sufficient or gtd_new >= 0:
            bracket = _Bracket([(t_prev, f_prev, g_prev, gtd_prev), (t, f_new, g_new.copy(), gtd_new)])
            break
        t_next = cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.copy(), gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals, gtd_new, it = evals + 1, _scalar(g_new.dot(d)), it + 1
    if it == max_ls:
        bracket = _Bracket([(0.0, f, g, gtd), (t, f_new, g_new, gtd_new)])
    low = 0
    if not done:
        evals, low = _zoom(evaluate, bracket, d, d_norm, f, gtd, c1, c2, tolerance_change, max_ls, evals, it)
    return bracket.f[low], bracket.g[low], bracket.t[low], evals


def _zoom(evaluate: Callable[[float], tuple[float, Any]], b: _Bracket, d: Any, d_norm: float, f: float,
          gtd: float, c1: float, c2: float, tolerance_change: float, max_ls: int, evals: int,
          it: int) -> tuple[int, int]:
    """Phase 2: shrink the bracket by cubic interpolation until a point meets the conditions;
    returns the evaluations made and which end of the bracket is the answer."""
    insufficient = False
    low, high = b.order()
    while it < max_ls and abs(b.t[1] - b.t[0]) * d_norm >= tolerance_change:
        t = cubic_minimum(b.t[0], b.f[0], b.gtd[0], b.t[1], b.f[1], b.gtd[1])
        t, insufficient = _keep_inside(t, b.t, insufficient)
        f_new, g_new = evaluate(t)
        evals, gtd_new, it = evals + 1, _scalar(g_new.dot(d)), it + 1
        if f_new > f + c1 * t * gtd or f_new >= b.f[low]:
            b.put(high, t, f_new, g_new.copy(), gtd_new)
            low, high = b.order()
            continue
        if abs(gtd_new) <= -c2 * gtd:
            b.put(low, t, f_new, g_new.copy(), gtd_new)
            break
        if gtd_new * (b.t[high] - b.t[low]) >= 0:
            b.put(high, b.t[low], b.f[low], b.g[low], b.gtd[low])
        b.put(low, t, f_new, g_new.copy(), gtd_new)
    return evals, low


def _keep_inside(t: float, ts: list[float], insufficient: bool) -> tuple[float, bool]:
    """Move a trial step that falls too near an end of the bracket (within 10% of its
    width) away from it, if the last one did too: the search must make progress."""
    hi, lo = builtins.max(ts), builtins.min(ts)
    eps = 0.1 * (hi - lo)
    if builtins.min(hi - t, t - lo) >= eps:
        return t, False
    if not (insufficient or t >= hi or t <= lo):
        return t, True
    return (hi - eps if abs(t - hi) < abs(t - lo) else lo + eps), False


class LBFGS(Optimizer):
    """L-BFGS (PyTorch's arguments and defaults).  ``step(closure)`` needs the closure: it
    re-evaluates the model (``zero_grad``, forward, ``backward``) and returns the loss.

    One parameter group only.  ``line_search_fn``: ``None`` (fixed step ``lr``) or
    ``"strong_wolfe"``.  ``max_eval`` defaults to ``max_iter * 5 // 4``.
    """

    state_follows_parameter_shape = False  # the history holds vectors over all parameters
    state_holds_lists = True  # ... in lists (old_dirs, old_stps, ro)
    scalar_state_keys = ()  # its counts (func_evals, n_iter) are ints, as PyTorch's

    def __init__(self, params: Iterable[Any], lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        check_lr_elements(lr)
        if not lr >= 0:
            raise ValueError(f"LBFGS: Invalid learning rate: {lr}")
        if line_search_fn not in (None, "strong_wolfe"):  # PyTorch's RuntimeError (its step raises it); here at once
            raise RuntimeError(f"LBFGS: only 'strong_wolfe' is supported as line_search_fn (or None), "
                               f"got {line_search_fn!r}")
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_iter * 5 // 4 if max_eval is None else max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    def add_param_group(self, group: dict[str, Any]) -> None:
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(group)

    # ------------------------------------------------------------ flat vectors
    @property
    def _params(self) -> list[Tensor]:
        return self.param_groups[0]["params"]

    def _loaded_value(self, p: Tensor, idx: int, key: str, v: Any) -> Any:
        """A loaded state value (``Optimizer._loaded_value``); the history's vectors (``d``,
        ``prev_flat_grad``, ``old_dirs``, ``old_stps``) run over all the parameters, so one of
        another length -- a state of other parameters -- is refused here, as the other optimizers
        refuse a moment of another shape, not left to fail inside a later ``step``."""
        if key == "H_diag" and isinstance(v, float):  # a snapshot keeps a 0-d tensor as its number
            v = Tensor._from_data(host_numpy.asarray(v, dtype=self.as_real(p).dtype), device=p.device)
        value = super()._loaded_value(p, idx, key, v)
        size = builtins.sum(self.as_real(q).numel() for q in self._params)
        for t in value if isinstance(value, list) else [value]:
            if isinstance(t, Tensor) and t.ndim == 1 and t.shape[0] != size:
                raise ValueError(f"LBFGS: state {key!r} holds a vector of {t.shape[0]} elements, the "
                                 f"parameters have {size}")
        return value

    def _flat_grad(self) -> Any:
        """The gradients as one real vector: a complex parameter's as its real view (real,
        imaginary pairs), as PyTorch's LBFGS flattens it -- so dot products and norms are those of
        the real parameters it stands for."""
        xp = self._params[0].device.xp
        views = [self.as_real(p) for p in self._params]
        return xp.concatenate([xp.zeros(v.size, v.dtype) if v.grad is None else v.grad._data.reshape(-1)
                               for v in views])

    def _add_step(self, t: float, d: Any) -> None:
        offset = 0
        for p in self._params:
            view = self.as_real(p)  # a complex parameter moves through its real view
            view.add_((t * d[offset:offset + view.size]).reshape(view.shape))
            offset += view.size
            if view is not p:
                p.increment_version()

    def _evaluate(self, closure: Callable[[], Any]) -> tuple[float, Any]:
        with enable_grad():
            out = closure()
        return float(out), self._flat_grad()  # (read with grad mode off, as PyTorch's: no scalar warning)

    def _directional(self, closure: Callable[[], Any], x: list[Any], d: Any) -> Callable[[float], tuple[float, Any]]:
        def evaluate(t: float) -> tuple[float, Any]:
            self._add_step(t, d)
            out = self._evaluate(closure)
            for p, v in zip(self._params, x):
                p.copy_(v)
            return out
        return evaluate

    # ------------------------------------------------------------------ step
    def step(self, closure: Callable[[], Any] | None = None) -> Any:  # type: ignore[override]
        """Up to ``max_iter`` iterations; returns the loss the first ``closure()`` gave."""
        if closure is None:
            raise TypeError("LBFGS.step needs a closure that re-evaluates the model and returns the loss")
        group = self.param_groups[0]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            first = closure()
        with no_grad():
            loss, g = float(first), self._flat_grad()
            state["func_evals"] += 1
            if _scalar(abs(g).max()) <= group["tolerance_grad"]:
                return first
            memory = _Memory.load(state)
            self._iterate(closure, group, state, memory, loss, g)
            memory.save(state)
            if "al" in state:
                state["al"] = _wrapped(state["al"])
        return first

    def _iterate(self, closure: Callable[[], Any], group: dict[str, Any], state: dict[str, Any],
                 memory: _Memory, loss: float, g: Any) -> None:
        evals, n_iter = 1, 0
        while n_iter < group["max_iter"]:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] != 1:  # PyTorch's scratch list of the two-loop coefficients, kept in the state
                state["al"] = _raw(state.setdefault("al", [None] * group["history_size"]))
            memory.direction(g, state["n_iter"] == 1, group["history_size"], state.get("al"))
            memory.prev_loss = loss
            memory.prev_grad = g.copy()
            # a tensor lr as its value (t scales arrays), read as PyTorch's step reads it (its add_'s alpha)
            lr = number("LBFGS", "lr", as_one_value(group["lr"]))  # (one element of any dims, as PyTorch's)
            t = memory.first_step(g, lr) if state["n_iter"] == 1 else lr
            gtd = _scalar(g.dot(memory.d))
            if gtd > -group["tolerance_change"]:
                break
            loss, g, t, used = self._move(closure, group, memory.d, t, loss, g, gtd, evals, n_iter)
            memory.t = t
            evals += used
            state["func_evals"] += used
            if n_iter == group["max_iter"] or evals >= group["max_eval"]:
                break
            if _scalar(abs(g).max()) <= group["tolerance_grad"] or _scalar(abs(memory.d * t).max()) <= \
                    group["tolerance_change"] or abs(loss - memory.prev_loss) < group["tolerance_change"]:
                break

    def _move(self, closure: Callable[[], Any], group: dict[str, Any], d: Any, t: float, loss: float, g: Any,
              gtd: float, evals: int, n_iter: int) -> tuple[float, Any, float, int]:
        """Take the step along ``d`` (searched, or fixed); the new loss, gradient, step, evaluations."""
        if group["line_search_fn"] == "strong_wolfe":
            x = [p._data.copy() for p in self._params]
            loss, g, t, used = strong_wolfe(self._directional(closure, x, d), _search_start(t), d, loss, g, gtd,
                                            max_ls=group["max_eval"] - evals)
            self._add_step(t, d)
            return loss, g, t, used
        self._add_step(t, d)
        if n_iter == group["max_iter"]:
            return loss, g, t, 0
        loss, g = self._evaluate(closure)
        return loss, g, t, 1


class _Memory:
    """The curvature pairs and the last direction: what carries over from step to step.

    As PyTorch's, the two-loop recursion's scalars -- ``ro = 1 / y.s``, ``H_diag``, the
    coefficients ``al`` -- are 0-d values in the gradient's dtype (tensors in the state), so a float32
    run rounds them as PyTorch's does, and the first step ``t = min(1, 1 / |g|_1) * lr`` too."""

    KEYS = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")

    def __init__(self, values: dict[str, Any]) -> None:
        self.d = values.get("d")
        self.t = values.get("t")
        self.old_dirs: list[Any] = list(values.get("old_dirs") or [])
        self.old_stps: list[Any] = list(values.get("old_stps") or [])
        self.ro: list[Any] = list(values.get("ro") or [])
        self.h_diag = values.get("H_diag", 1)
        self.prev_grad = values.get("prev_flat_grad")
        self.prev_loss = values.get("prev_loss")

    @classmethod
    def load(cls, state: dict[str, Any]) -> _Memory:
        return cls({k: _raw(state[k]) for k in cls.KEYS if k in state})

    def save(self, state: dict[str, Any]) -> None:
        values = dict(d=self.d, t=self.t, old_dirs=self.old_dirs, old_stps=self.old_stps, ro=self.ro,
                      H_diag=self.h_diag, prev_flat_grad=self.prev_grad, prev_loss=self.prev_loss)
        state.update({k: _wrapped(v) for k, v in values.items()})

    @staticmethod
    def first_step(g: Any, lr: Any) -> Any:
        """PyTorch's ``min(1.0, 1.0 / g.abs().sum()) * lr``: a 0-d value of ``g``'s dtype when the
        reciprocal is below 1, else ``1.0 * lr``."""
        inverse = 1.0 / abs(g).sum()
        return inverse * lr if _scalar(inverse) < 1.0 else 1.0 * lr

    def direction(self, g: Any, first: bool, history_size: int, al: list[Any] | None) -> None:
        """``d = -H g`` by the two-loop recursion over the stored pairs; the coefficients go into
        ``al`` (the state's list, as PyTorch's)."""
        if first:
            self.d, self.old_dirs, self.old_stps, self.ro, self.h_diag = -g, [], [], [], 1
            return
        y, s = g - self.prev_grad, self.d * self.t
        ys = y.dot(s)
        if _scalar(ys) > 1e-10:
            if len(self.old_dirs) == history_size:
                self.old_dirs.pop(0), self.old_stps.pop(0), self.ro.pop(0)
            self.old_dirs.append(y)
            self.old_stps.append(s)
            self.ro.append(1.0 / ys)
            self.h_diag = ys / y.dot(y)
        al = al if al is not None and len(al) >= len(self.old_dirs) else [None] * len(self.old_dirs)
        q = -g
        for i in range(len(self.old_dirs) - 1, -1, -1):
            al[i] = self.old_stps[i].dot(q) * self.ro[i]
            q = q - al[i] * self.old_dirs[i]
        r = q * self.h_diag
        for i in range(len(self.old_dirs)):
            be_i = self.old_dirs[i].dot(r) * self.ro[i]
            r = r + (al[i] - be_i) * self.old_stps[i]
        self.d = r


def _search_start(t: Any) -> Any:
    """The line search's first trial step: a number as it is (an int ``lr`` the search accepts stays
    the int PyTorch keeps as ``state["t"]``), a 0-d array (the first iteration's) as a scalar of its dtype."""
    return t if isinstance(t, (int, float)) else _scalar(t)


def _raw(v: Any) -> Any:
    """A state value as the recursion reads it: a tensor's array, in lists too."""
    if isinstance(v, Tensor):
        return v._data
    return [_raw(x) for x in v] if isinstance(v, list) else v


def _wrapped(v: Any) -> Any:
    """An array (a 0-d one too) as a tensor of the state, in lists too; numbers and None as they are."""
    if isinstance(v, list):
        return [_wrapped(x) for x in v]
    if isinstance(v, host_numpy.generic):  # a NumPy backend's 0-d result (a dot product) is a scalar
        v = host_numpy.asarray(v)
    return Tensor.constant(v) if hasattr(v, "shape") and not isinstance(v, Tensor) else v
