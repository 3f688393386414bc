"""Function transforms: ``jvp``, ``vjp``, ``grad``, ``jacfwd``, ``jacrev``, ``hessian``, ...

Names and semantics follow JAX and ``torch.func``: a transform takes a
function of Tensors -- or of tuples, lists and dicts of Tensors (*pytrees*,
:mod:`.pytree`) -- and returns values, or a new function.  Forward mode
(``jvp``, ``jacfwd``) pushes tangents beside the values (:mod:`.forward`);
reverse mode (``vjp``, ``grad``, ``jacrev``) records the tape and runs
backward (:mod:`.reverse`).  They compose: ``hessian(f) = jacfwd(jacrev(f))``
runs forward mode over a backward pass.

Three promises hold for every transform, at any nesting depth:

* **Closures keep their history.**  A transform differentiates with respect
  to its own arguments only (fresh handles on them: no perturbation
  confusion), but a tensor the function *closes over* -- a parameter, the
  argument of an outer transform -- keeps its dependence: the results carry
  the history and the tangents that lead outside, so an outer transform,
  ``mg.grad`` or ``.backward()`` sees it.  Results whose history stays inside
  are plain tensors.
* **The function runs once.**  ``jacfwd`` pushes every column in one call
  (sibling levels), ``jacrev`` runs one forward and one backward per row, so
  side effects -- BatchNorm's running statistics, counters, the random
  generator -- happen exactly as in one call of the function.
* **Arguments as JAX takes them.**  Keyword arguments pass through to the
  function and are never differentiated; ``argnums`` is an int or a tuple
  (negative counts from the end); ``has_aux=True`` everywhere.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from .. import functional as _F
from ..grad_mode import enable_grad, no_grad
from ..grad_mode import state as grad_state
from ..no_trace import leaving_no_trace
from ..random import draws_made, rewind, watching_draws
from ..tape import SAVED_VALUE_MODIFIED
from ..tensor import Tensor, _seq
from .captures import CaptureScope, memory_made_before
from .forward import _alias, enter_levels, exit_levels, make_dual, strip_levels, tangent_of
from .pytree import Tree, _holds_none, flatten, paths, tensor_leaves, unflatten
from .reverse import Scope

__all__ = ["jvp", "vjp", "grad", "value_and_grad", "grad_and_value", "functionalize", "debug_unwrap",
           "jacfwd", "jacrev", "jacobian", "hessian",
           "hvp", "linearize"]


# ---------------------------------------------------------------------------
# Arguments and results
# ---------------------------------------------------------------------------
def _split_aux(result: Any, has_aux: bool, what: str) -> tuple[Any, Any]:
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{what}(has_aux=True): the function must return a pair (output, aux)")
    _refuse_non_tensor_aux(result[1])
    return result


def _refuse_non_tensor_aux(aux: Any) -> None:
    """``torch.func``'s refusal of an auxiliary output that holds anything but tensors (a number, a
    string, None, an array), in its words: a program that hands back its step count or a label beside
    the loss here would fail the moment it runs on PyTorch."""
    leaves, tree = flatten(aux)
    if _holds_none(tree):  # (None is an empty container to flatten; torch.func sees a leaf)
        raise RuntimeError("Expected tensors, got unsupported type <class 'NoneType'>")
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")


#: the forward-mode transforms: torch.func refuses an integer primal of theirs with a ValueError
_FORWARD = ("jvp", "jacfwd", "linearize")


def _not_a_tensor(value: Any, what: str, name: str) -> Exception:
    """``torch.func``'s refusal of a value to differentiate that is not a Tensor (a number, an array,
    None, a string), in its type and words: converting it would hand back the derivative with respect
    to a copy the caller never made -- in the default dtype for a Python number, float64 for a NumPy
    array -- where PyTorch's answer is that the argument is wrong."""
    got = type(value)
    if what == "jvp" or name == "tangents":  # (torch 2.13: jvp's own check; linearize's jvp_fn alike)
        return RuntimeError(f"{what}(f, primals, tangents): Expected {name} to only contain Tensors, got {got}")
    if name == "cotangents":  # (torch 2.13: autograd's check of the gradients handed to backward)
        return TypeError(f"{what}: gradients can be either Tensors or None, but got {got.__name__}")
    # torch 2.13: grad, vjp and jacrev; its jacfwd, hessian and linearize fail with an AttributeError
    # on the value's missing numel/new_empty, no word on what is wrong
    return ValueError(f"{what}: Thing passed to transform API must be Tensor, got {got}")


def _refuse_non_tensors(leaves: list[Any], tree: Tree, what: str, name: str) -> None:
    if _holds_none(tree):  # (None is an empty container to flatten; torch.func's transforms see a leaf)
        raise _not_a_tensor(None, what, name)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise _not_a_tensor(leaf, what, name)


def _differentiable(leaves: list[Any], tree: Tree, what: str, name: str) -> list[Tensor]:
    """The leaves, checked to be floating-point Tensors."""
    _refuse_non_tensors(leaves, tree, what, name)
    out = []
    for leaf, path in zip(leaves, paths(tree, name)):
        t = leaf
        if t.dtype.kind not in "fc":
            error = ValueError if what in _FORWARD else RuntimeError  # (torch 2.13's types)
            raise error(f"{what}: {path} is {t.dtype}; only floating-point and complex tensors "
                        f"can be differentiated")
        out.append(t)
    return out


def _sequence(x: Any, what: str, name: str) -> tuple:
    if isinstance(x, (tuple, list)):
        return tuple(x)
    raise RuntimeError(f"{what}: {name} must be a tuple (or list), one entry per argument, "
                       f"got a {type(x).__name__}")


def check_chunk_size(chunk_size: Any, words: str) -> None:
    """PyTorch's checks of ``chunk_size``: not an int is a TypeError (torch 2.13's arises where it splits
    the batch: "can't multiply sequence by non-int of type 'float'"), an int below 1 its ValueError."""
    if chunk_size is None:
        return
    if not isinstance(chunk_size, int):
        raise TypeError(f"{words.split(':')[0]}: chunk_size must be None or an int, got {type(chunk_size).__name__}")
    if chunk_size <= 0:
        raise ValueError(words)


def _argnums(argnums: Any, n: int, what: str) -> tuple[tuple[int, ...], bool]:
    single = isinstance(argnums, int)
    nums = tuple(argnums) if isinstance(argnums, (tuple, list)) else (argnums,)
    if not nums:
        raise RuntimeError(f"{what}: argnums is empty")
    out = []
    for a in nums:
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"{what}: argnums must be an int or a tuple of ints, got {argnums!r}")
        if not -n <= a < n:
            raise RuntimeError(f"{what}: argnums {a} is out of range for {n} positional arguments")
        out.append(a % n)
    if len(set(out)) != len(out):  # the same argument twice: which gradient goes where? (PyTorch refuses too)
        raise RuntimeError(f"{what}: argnums elements must be unique, got {tuple(out)}")
    return tuple(out), single


class _Chosen:
    """The arguments a transform differentiates (``argnums``), flattened to leaves."""

    def __init__(self, f: Callable, args: tuple, kwargs: dict, argnums: Any, what: str) -> None:
        self.nums, self.single = _argnums(argnums, len(args), what)
        chosen = args[self.nums[0]] if self.single else tuple(args[i] for i in self.nums)
        leaves, self.tree = flatten(chosen)
        self.name = f"argument {self.nums[0]}" if self.single else "the arguments in argnums"
        self.leaves = _differentiable(leaves, self.tree, what, self.name)
        self.f, self.args, self.kwargs = f, args, kwargs
        self.passed = (args, kwargs)  # the function may write into all of them (func.captures)

    def __call__(self, *leaves: Tensor) -> Any:
        """``f`` with the chosen leaves replaced by ``leaves``."""
        chosen = unflatten(self.tree, leaves)
        full = list(self.args)
        for i, c in zip(self.nums, (chosen,) if self.single else chosen):
            full[i] = c
        return self.f(*full, **self.kwargs)


def _zeros(shape: tuple[int, ...], like: Tensor) -> Tensor:
    return Tensor._wrap(like.device.xp.zeros(shape, dtype=like.dtype), None, like.device)


def _one_hot(like: Tensor, j: int) -> Tensor:
    e = like.device.xp.zeros(like.shape, dtype=like.dtype)
    e.reshape(-1)[j] = 1
    return Tensor._wrap(e, None, like.device)


def _map_tensors(tree: Any, fn: Callable[[Tensor], Any]) -> Any:
    leaves, structure = flatten(tree)
    return unflatten(structure, [fn(t) if isinstance(t, Tensor) else t for t in leaves])


class ComplexRefused(RuntimeError, TypeError):
    """A complex value where a transform takes real ones (a Jacobian's input or output, a cotangent for a real
    output): PyTorch's RuntimeError, and the TypeError the engine raised before (handlers of either catch it)."""


def _matching(values: Any, like: list[Tensor], tree: Tree, what: str, name: str, cast: bool = True) -> list[Tensor]:
    """``values`` (a pytree shaped as ``tree``) as Tensors of ``like``'s shapes and dtypes; a
    Tensor of another dtype is cast, or without ``cast`` refused (PyTorch's ``linearize``: its
    ``jvp_fn`` replays a graph traced for the primals' dtypes)."""
    leaves, structure = flatten(values)
    if structure == tree:
        _refuse_non_tensors(leaves, structure, what, name)
    if structure != tree:
        raise RuntimeError(f"{what}: {name} must have the structure of the "
                         f"{'primals' if name == 'tangents' else 'outputs'}")
    out = []
    for i, (v, p) in enumerate(zip(leaves, like)):
        if v.shape != p.shape:
            raise RuntimeError(f"{what}: {name} {i} has shape {v.shape} but should have {p.shape}")
        if v.device is not p.device:
            raise RuntimeError(f"{what}: {name} {i} is on {v.device} but should be on {p.device}")
        if name == "tangents" and v.dtype.kind not in "fc":  # no direction to move in (torch refuses it)
            error = ValueError if what == "jvp" else RuntimeError  # (torch 2.13's types)
            raise error(f"{what}: Expected tangent to be floating point or complex, but got: {v.dtype} "
                        f"(tangent {i}, whose primal is {p.dtype})")
        if v.dtype.kind == "c" and p.dtype.kind != "c":
            if name == "cotangents":  # torch 2.13's type and words (mg.autograd.grad's check too), then ours
                raise ComplexRefused(f"{what}: For complex Tensors, both grad_output and output are required to "
                                     f"have the same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                                     f"{v.dtype} and output[{i}] has a dtype of {p.dtype}: cotangents {i} is "
                                     f"complex ({v.dtype}) but its output is real ({p.dtype}): the imaginary part "
                                     f"would be dropped; pass a real cotangent")
            raise TypeError(f"{what}: {name} {i} is complex ({v.dtype}) but its primal is real ({p.dtype}): the "
                            f"imaginary part would be dropped; pass a real {name[:-1]}")
        if not cast and v.dtype != p.dtype:  # (torch 2.13's words)
            raise RuntimeError(f"tangent:{i} with dtype {v.dtype} in flattened pytree doesn't match the dtype "
                               f"{p.dtype} of the corresponding primal.")
        out.append(v if v.dtype == p.dtype else _F.astype(v, p.dtype))
    return out


def _refuse_complex(tensors: list[Tensor], tree: Tree, what: str, name: str) -> None:
    """A Jacobian of complex inputs or outputs is refused (``torch.func`` and JAX refuse it too).

    A complex input or output has no one Jacobian matrix: forward mode pushes
    ``J v``, reverse mode the gradient convention (``v * conj(f'(z))``,
    ``docs/complex.md``), so ``jacrev`` would give ``conj(J)``, and a real input
    would keep only the real part of its column.
    """
    for idx, (t, path) in enumerate(zip(tensors, paths(tree, name))):
        if t.dtype.kind == "c":  # torch 2.13's type and words first ("input idx" for an output too)
            raise ComplexRefused(
                f"{what}: Expected all {'outputs' if name == 'output' else 'inputs'} to be real but received "
                f"complex tensor at flattened input idx: {idx}. "
                f"{path} is complex ({t.dtype}); Jacobians are taken of real inputs and outputs "
                f"only, as in torch.func and JAX: the two modes disagree on complex numbers (forward "
                f"mode gives J, reverse mode conj(J)). Use jvp (J @ v) or vjp (the gradient "
                f"convention of docs/complex.md), or differentiate the real and imaginary parts "
                f"(mg.real, mg.imag, mg.view_as_real)")


def _assemble(out_tree: Tree, in_tree: Tree, table: list[list[Tensor]]) -> Any:
    """A Jacobian pytree: ``f``'s output structure, each leaf the structure of the inputs."""
    return unflatten(out_tree, [unflatten(in_tree, row) for row in table])


def _block(parts: list[Tensor | None], o: Tensor, p: Tensor, axis: int) -> Tensor:
    """The ``o``-by-``p`` Jacobian block from its rows (axis 0) or columns (axis -1)."""
    if not parts or o.size == 0 or p.size == 0 or all(x is None for x in parts):
        return _zeros(o.shape + p.shape, o)
    like = o if axis == -1 else p
    parts = [_zeros(like.shape, like) if x is None else x for x in parts]
    return _F.reshape(_F.stack(parts, axis=axis), o.shape + p.shape)


# ---------------------------------------------------------------------------
# Forward mode
# ---------------------------------------------------------------------------
def _forward_pass(f: Callable, primals: list[Tensor], columns: list[list[Tensor | None]],
                  has_aux: bool, what: str, passed: Any) -> tuple:
    """Run ``f`` once with one sibling level per column (a tangent per primal, or None).

    Returns ``(outputs, output structure, [per column: tangent per output or
    None], aux)``.  The levels close before this returns; nothing keeps their
    tangents.  ``passed``: what the caller handed ``f`` (:class:`CaptureScope`).
    """
    levels = enter_levels(len(columns)) if columns else []
    closing = set(levels)
    try:
        with CaptureScope(passed):
            duals = []
            for i, p in enumerate(primals):
                ts = {lv: col[i] for lv, col in zip(levels, columns) if col[i] is not None}
                duals.append(make_dual(p, ts) if ts else p)
            result, aux = _split_aux(f(*duals), has_aux, what)
        outs, out_tree = tensor_leaves(result, what, "output")
        per_level = [[tangent_of(o, lv) for o in outs] for lv in levels]
        for t in outs + [t for col in per_level for t in col if t is not None]:
            strip_levels(t, closing)
        aux = _map_tensors(aux, lambda t: strip_levels(t, closing) or t)
    finally:
        exit_levels(levels)
    return outs, out_tree, per_level, aux


def jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any], *,
        has_aux: bool = False, **kwargs: Any) -> tuple:
    """``(f(*primals), J @ tangents)``: a Jacobian-vector product in one forward pass.

    ``primals`` and ``tangents`` are tuples with one entry per argument of
    ``f`` -- a tensor or a pytree of tensors; a tangent has its primal's
    structure and shapes.  The tangents are pushed through the ops beside the
    values; no tape is recorded for them, so the cost is about that of two
    evaluations of ``f``, whatever the number of outputs.  Returns
    ``(outputs, output_tangents)`` in ``f``'s output structure (and the
    ``aux`` output third with ``has_aux=True``).  An output that does not
    depend on the primals gets a zero tangent.  ``kwargs`` go to ``f``.
    """
    if not isinstance(primals, tuple):  # (torch 2.13's words; a list too: f(*primals) must be the call)
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
                           "to call f(*primals).")
    if not isinstance(tangents, tuple):
        raise RuntimeError(f"jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           f"structure: primals is a tuple, tangents a {type(tangents).__name__}")
    if len(primals) != len(tangents):
        raise RuntimeError(f"jvp: got {len(primals)} primals but {len(tangents)} tangents")
    leaves, tree = flatten(primals)
    ps = _differentiable(leaves, tree, "jvp", "primals")
    if not ps:  # (torch 2.13's words: nothing to push a tangent through)
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to contain at least one Tensor.")
    ts = _matching(tangents, ps, tree, "jvp", "tangents")

    def flat(*xs: Tensor) -> Any:
        return f(*unflatten(tree, xs), **kwargs)

    outs, out_tree, (out_ts,), aux = _forward_pass(flat, ps, [ts], has_aux, "jvp", (ps, kwargs))
    dys = [_zeros(o.shape, o) if t is None else t for o, t in zip(outs, out_ts)]
    res = (unflatten(out_tree, outs), unflatten(out_tree, dys))
    return res + (aux,) if has_aux else res


def jacfwd(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False, *,
           randomness: str = "same") -> Callable:
    """The Jacobian of ``f`` by forward mode: one tangent per input element.

    ``jacfwd(f)(x)`` has shape ``out.shape + x.shape``.  With a tuple
    ``argnums`` the result is a tuple (one Jacobian per argument); with
    several outputs, ``f``'s output structure holding one such entry per
    output.  Cheap when the inputs are few and the outputs many; ``jacrev`` is
    the other way round.  ``f`` runs once: every column is pushed through the
    same call (one sibling level each), so module buffers are what one call
    of ``f`` makes them, and so are random draws: ``randomness="same"`` (the
    default here; PyTorch's default is ``"error"``) lets every column see the
    one call's draws -- a dropout mask is one mask, and ``hessian`` of a
    function with dropout works.  ``"error"`` refuses a random draw inside
    ``f`` as PyTorch does; ``"different"`` -- a draw of its own per column --
    is refused when ``f`` draws (one call cannot make it), and is PyTorch's
    Jacobian when it does not (a model in evaluation mode).
    """
    _check_randomness(randomness)

    def jac(*args: Any, **kwargs: Any) -> Any:
        checked = f if randomness == "same" else _refusing_draws(f, randomness)
        chosen = _Chosen(checked, args, kwargs, argnums, "jacfwd")
        ps = chosen.leaves
        _refuse_complex(ps, chosen.tree, "jacfwd", chosen.name)
        columns, owner = [], []
        for i, p in enumerate(ps):
            for j in range(p.size):
                col: list[Tensor | None] = [None] * len(ps)
                col[i] = _one_hot(p, j)
                columns.append(col)
                owner.append(i)
        outs, out_tree, per_level, aux = _forward_pass(chosen, ps, columns, has_aux, "jacfwd", chosen.passed)
        _refuse_complex(outs, out_tree, "jacfwd", "output")
        table = [[_block([per_level[c][k] for c in range(len(columns)) if owner[c] == i], o, p, -1)
                  for i, p in enumerate(ps)] for k, o in enumerate(outs)]
        result = _assemble(out_tree, chosen.tree, table)
        return (result, aux) if has_aux else result

    return jac


#: PyTorch's words for a random draw under ``randomness="error"``
RANDOM_DRAW_REFUSED = ("vmap: called random operation while in randomness error mode. Please either use the "
                       "'same' or 'different' randomness flags on vmap or perform the randomness operation "
                       "out of vmap")


#: why jacfwd's ``randomness="different"`` is refused when the function draws
DIFFERENT_DRAWS_REFUSED = ("jacfwd(randomness='different'): every column of the Jacobian is pushed through one call "
                           "of the function, so the columns cannot have random draws of their own; use "
                           "randomness='same' (one draw for all columns) or draw the randomness outside the function")


def _check_randomness(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")


def _refusing_draws(f: Callable, randomness: str = "error") -> Callable:
    """``f``, refusing a random draw: PyTorch's ``randomness="error"``, or ``"different"``, which
    one call of ``f`` cannot give each column (a function that draws nothing is the same under all three)."""
    def checked(*args: Any, **kwargs: Any) -> Any:
        drawn = draws_made()
        with watching_draws() as started:
            result = f(*args, **kwargs)
        if draws_made() != drawn:
            rewind(started)  # every generator it drew from, the engine's or one handed to a sampling function
            if randomness == "different":
                raise NotImplementedError(DIFFERENT_DRAWS_REFUSED)
            raise RuntimeError(RANDOM_DRAW_REFUSED)
        return result

    return checked


# ---------------------------------------------------------------------------
# Reverse mode
# ---------------------------------------------------------------------------
class _Recording:
    """``f`` run once on fresh handles of ``primals``, its tape kept for backward passes."""

    def __init__(self, f: Callable, primals: list[Tensor], has_aux: bool, what: str, passed: Any) -> None:
        self.scope = Scope()
        self.primals = primals
        with CaptureScope(passed) as capture, enable_grad():  # (passed: what the caller handed f)
            self.ins = [self.scope.input(p) for p in primals]
            self.scope.arguments(self.ins)
            capture.differentiate(self.ins, primals)
            capture.reverse = self.scope
            try:
                result, aux = _split_aux(f(*self.ins), has_aux, what)
                result = _map_tensors(result, lambda t: _own_handle(t, capture))
            finally:
                self.scope.forget_arguments()
        self.outs, self.out_tree = tensor_leaves(result, what, "output")
        self.scope.hide_hooks(self.outs)
        self.aux = _map_tensors(aux, self.scope.hand_out)
        # (an auxiliary output handed out with its history: a later backward through it may pass
        # through the tape, which the last pullback must then keep)
        self.aux_keeps_history = any(isinstance(t, Tensor) and t._node is not None for t in flatten(self.aux)[0])

    def outputs(self) -> Any:
        return unflatten(self.out_tree, [self.scope.hand_out(o) for o in self.outs])

    def pullback(self, cotangents: list[Tensor], last: bool = False) -> list[Tensor]:
        """``J^T cotangents``, one gradient per primal (zeros where unused); ``last``: no other
        pullback comes (``grad``'s one), so the tape need not be kept for one."""
        pairs = [(o, c) for o, c in zip(self.outs, cotangents)
                 if o._requires_grad and o.dtype.kind in "fc"]
        gs = self.scope.backward([o for o, _ in pairs], self.ins, [c for _, c in pairs],
                                 last=last and not self.aux_keeps_history)
        return [_zeros(p.shape, p) if g is None else self.scope.hand_out(g)
                for p, g in zip(self.primals, gs)]


def _own_handle(t: Tensor, capture: CaptureScope) -> Tensor:
    """An output that is a tensor the caller passed (``y.copy_(x); return y``), on an alias: leaving
    the transform cuts the passed tensor off the transform's history (:meth:`CaptureScope.close`),
    which the backward passes of the output still need."""
    if t._requires_grad and any(t is p for p in capture.passed):
        return _alias(t)
    return t


def _refuse_integral_outputs(outs: list[Tensor]) -> None:
    """PyTorch's vjp (so jacrev and hessian too) refuses an integer or bool output: it has no
    cotangent (``grad``, whose output is seeded with 1, takes one and gives zeros, as PyTorch's)."""
    for o in outs:
        if o.dtype.kind not in "fc":
            raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
                               f"with dtype {o.dtype}")


def vjp(f: Callable, *primals: Any, has_aux: bool = False, **kwargs: Any) -> tuple:
    """``(f(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` is ``J^T @ cotangents``.

    ``f`` runs once and its tape is kept; each ``vjp_fn`` call is one backward
    pass, whatever the number of inputs.  ``cotangents`` has ``f``'s output
    structure (one tensor per output, each of its output's shape);
    ``vjp_fn`` returns a tuple with one gradient per primal, in the primal's
    structure (zeros where the outputs do not depend on it).  With
    ``has_aux=True`` the result is ``(output, vjp_fn, aux)``.  ``kwargs`` go
    to ``f``.
    """
    leaves, tree = flatten(primals)
    ps = _differentiable(leaves, tree, "vjp", "primals")
    rec = _Recording(lambda *xs: f(*unflatten(tree, xs), **kwargs), ps, has_aux, "vjp", (ps, kwargs))
    _refuse_integral_outputs(rec.outs)

    def vjp_fn(cotangents: Any) -> tuple:
        cts = _matching(cotangents, rec.outs, rec.out_tree, "vjp_fn", "cotangents")
        return unflatten(tree, rec.pullback(cts))

    res = (rec.outputs(), vjp_fn)
    return res + (rec.aux,) if has_aux else res


def value_and_grad(f: Callable, argnums: int | Sequence[int] = 0, *,
                   has_aux: bool = False) -> Callable:
    """A function returning ``(f(*args), grad(f)(*args))`` from one forward and one backward.

    ``f`` must return a 0-d real tensor (a scalar loss; shape ``(1,)`` is refused, as by
    ``torch.func.grad`` and JAX).  With
    ``has_aux=True``, ``f`` returns ``(loss, aux)`` and the value is that pair.
    The gradient has the structure of the differentiated arguments.
    """
    def vg(*args: Any, **kwargs: Any) -> tuple:
        chosen = _Chosen(f, args, kwargs, argnums, "grad")
        rec = _Recording(chosen, chosen.leaves, has_aux, "grad", chosen.passed)
        if rec.out_tree.kind != "leaf" or rec.outs[0].ndim != 0:  # (torch.func and JAX refuse shape (1,) too)
            got = f"shape {tuple(rec.outs[0].shape)}" if rec.out_tree.kind == "leaf" else f"a {rec.out_tree.kind}"
            raise RuntimeError(f"grad: Expected f(*args) to return a scalar Tensor (0-d), got {got}; squeeze a "
                               f"one-element loss (loss.squeeze()), or use jacrev or vjp for other outputs")
        out = rec.outs[0]
        if out.dtype.kind == "c":  # no "the" derivative of a complex number to seed with 1 (docs/complex.md)
            raise RuntimeError(f"grad: the function returns a complex tensor ({out.dtype}); grad needs a "
                               f"real loss: differentiate a real function of it (mg.abs(z) ** 2, z.real), or "
                               f"use vjp, whose cotangent plays the part of backward's gradient=")
        grads = rec.pullback([Tensor._wrap(out.device.xp.ones(out.shape, dtype=out.dtype), None,
                                           out.device)], last=True)
        value = rec.outputs()
        return ((value, rec.aux) if has_aux else value), unflatten(chosen.tree, grads)

    return vg


def grad_and_value(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """``torch.func.grad_and_value``: a function returning ``(gradient, value)`` -- the gradient
    first, the other way round from :func:`value_and_grad` (JAX's order).  With ``has_aux=True``
    the value is the pair ``(loss, aux)``."""
    vg = value_and_grad(f, argnums, has_aux=has_aux)

    def gv(*args: Any, **kwargs: Any) -> tuple:
        value, grads = vg(*args, **kwargs)
        return grads, value

    return gv


def grad(f: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False) -> Callable:
    """The gradient of a scalar function: ``grad(f)(x)`` has ``x``'s shape (and structure).

    With a tuple ``argnums``, a tuple of gradients; with ``has_aux=True``,
    ``(gradient, aux)``.  ``grad(grad(f))`` is a second derivative.
    """
    vg = value_and_grad(f, argnums, has_aux=has_aux)

    def g(*args: Any, **kwargs: Any) -> Any:
        value, grads = vg(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return g


def jacrev(f: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None) -> Callable:
    """The Jacobian of ``f`` by reverse mode: one forward, one backward per output element.

    Shapes and structure as :func:`jacfwd`.  Cheap when the outputs are few
    and the inputs many (a gradient is one row).  ``chunk_size`` is
    PyTorch's memory knob (rows computed together); here the rows are one
    backward pass each anyway, so it is checked and changes nothing.
    """
    check_chunk_size(chunk_size, "jacrev: `chunk_size` should be greater than 0.")

    def jac(*args: Any, **kwargs: Any) -> Any:
        chosen = _Chosen(f, args, kwargs, argnums, "jacrev")
        _refuse_complex(chosen.leaves, chosen.tree, "jacrev", chosen.name)
        rec = _Recording(chosen, chosen.leaves, has_aux, "jacrev", chosen.passed)
        _refuse_integral_outputs(rec.outs)
        _refuse_complex(rec.outs, rec.out_tree, "jacrev", "output")
        table = []
        for k, o in enumerate(rec.outs):
            rows = []
            for r in range(o.size):
                rows.append(rec.pullback([_one_hot(oj, r) if j == k else _zeros(oj.shape, oj)
                                          for j, oj in enumerate(rec.outs)]))
            table.append([_block([row[i] for row in rows], o, p, 0) for i, p in enumerate(chosen.leaves)])
        result = _assemble(rec.out_tree, chosen.tree, table)
        return (result, rec.aux) if has_aux else result

    return jac


jacobian = jacrev


def hessian(f: Callable, argnums: int | Sequence[int] = 0, *, has_aux: bool = False) -> Callable:
    """The Hessian of a scalar function, forward-over-reverse: ``jacfwd(jacrev(f))``.

    ``hessian(f)(x)`` has shape ``x.shape + x.shape``.  One call of ``f``,
    one backward pass with every column's tangent pushed through it.  With a
    tuple ``argnums``, a tuple of tuples (the blocks ``d2f / dx_i dx_j``);
    with ``has_aux=True``, ``(hessian, aux)``.
    """
    return jacfwd(jacrev(f, argnums, has_aux=has_aux), argnums, has_aux=has_aux)


def hvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any], *,
        has_aux: bool = False, **kwargs: Any) -> tuple:
    """``(f(*primals), H @ tangents)`` for a scalar ``f``, without forming ``H``.

    Forward-over-reverse: one ``jvp`` of the gradient, about the cost of a
    few evaluations of ``f``.  The product is a tuple with one entry per
    primal, like the gradient with respect to all of them (the
    ``torch.autograd.functional.hvp`` result; JAX's cookbook ``hvp`` is its
    second item).  With ``has_aux=True``, ``(value, hvp, aux)``.
    """
    primals = _sequence(primals, "hvp", "primals")
    tangents = _sequence(tangents, "hvp", "tangents")
    vg = value_and_grad(f, tuple(range(len(primals))), has_aux=has_aux)

    def value_and_gradient(*args: Any) -> tuple:
        value, grads = vg(*args, **kwargs)
        if has_aux:
            return (value[0], grads), value[1]
        return value, grads

    res = jvp(value_and_gradient, primals, tangents, has_aux=has_aux)
    (value, _), (_, product) = res[0], res[1]
    return (value, product, res[2]) if has_aux else (value, product)


def linearize(f: Callable, *primals: Any, has_aux: bool = False, **kwargs: Any) -> tuple:
    """``(f(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is ``J @ tangents`` at ``primals``.

    ``f`` runs once.  ``jvp_fn`` does not run it again: it differentiates the
    recorded backward pass ``u -> J^T u`` (which is linear in ``u``) once more,
    in the direction of the tangents -- one backward pass per call, using the
    tape, so the result never depends on state ``f`` would read again (the
    random generator, module buffers).  With ``has_aux=True``,
    ``(output, jvp_fn, aux)``.

    Where the tape cannot stand for forward mode, ``jvp_fn`` is :func:`jvp`
    itself, as PyTorch's ``linearize`` always equals it: when ``f`` switched
    recording off (``no_grad``: forward mode differentiates through what the
    tape did not record, as PyTorch's does) or wrote in place into a value an op
    saved (the backward pass refuses it; forward mode does not).  Then each
    call runs ``f`` again -- on the primals as they were, from the random
    state ``f`` started in, and leaving no trace: what it writes in place
    (BatchNorm's running statistics) is put back afterwards.
    """
    return linearized(f, primals, has_aux=has_aux, kwargs=kwargs, argument_writes=True, forward_mode=True)


def linearized(f: Callable, primals: tuple, *, has_aux: bool, kwargs: dict, argument_writes: bool,
               forward_mode: bool = False) -> tuple:
    """:func:`linearize`; ``argument_writes=False`` refuses a write into an argument (they are the
    leaves the backward pass differentiates), as ``vjp`` and PyTorch's double-backward ``jvp`` do;
    ``forward_mode``: where the tape cannot stand for forward mode, ``jvp_fn`` runs :func:`jvp`."""
    leaves, tree = flatten(primals)
    ps = _differentiable(leaves, tree, "linearize", "primals")
    switches: list[int] = []
    written: dict[int, Tensor] = {}  # a primal f wrote into (by place in ps): its value before

    def called(*xs: Any) -> Any:
        before = grad_state.switched_off
        try:
            return f(*unflatten(tree, xs), **kwargs)
        finally:
            switches.append(grad_state.switched_off - before)

    with watching_draws() as started:
        rec = _Recording(_on_copies(called, ps, written) if argument_writes else called, ps, has_aux, "linearize",
                         (ps, kwargs))
    scope = rec.scope
    live = [o for o in rec.outs if o._requires_grad and o.dtype.kind in "fc"]
    # The seed u is a leaf (ones: any value works, the map is linear in u).
    with enable_grad():
        us = [scope.mark(Tensor._wrap(o.device.xp.ones(o.shape, dtype=o.dtype), None, o.device)
                         .requires_grad_()) for o in live]
    try:
        gs = None if forward_mode and any(switches) else scope.backward(live, rec.ins, us, graph=True)
    except RuntimeError as e:
        if not forward_mode or not str(e).startswith(SAVED_VALUE_MODIFIED):
            raise
        gs = None
    if gs is None:
        by_id = {id(p): written.get(i, p) for i, p in enumerate(ps)}
        at = unflatten(tree, [by_id.get(id(x), x) for x in leaves])  # (the primals as f was handed them)
        res = (rec.outputs(), _forward_mode_rerun(f, at, ps, tree, has_aux, kwargs, started))
        return res + (rec.aux,) if has_aux else res

    def jvp_fn(*tangents: Any) -> Any:
        if len(tangents) != len(primals):
            raise RuntimeError(f"jvp_fn: got {len(tangents)} tangents for {len(primals)} primals")
        ts = _matching(tangents, ps, tree, "jvp_fn", "tangents", cast=False)
        pairs = [(g, t) for g, t in zip(gs, ts) if g is not None and g._requires_grad]
        ds = scope.backward([g for g, _ in pairs], us, [t for _, t in pairs])
        found = {id(o): d for o, d in zip(live, ds)}
        res = [_zeros(o.shape, o) if found.get(id(o)) is None else scope.hand_out(found[id(o)])
               for o in rec.outs]
        return unflatten(rec.out_tree, res)

    res = (rec.outputs(), jvp_fn)
    return res + (rec.aux,) if has_aux else res


def _forward_mode_rerun(f: Callable, primals: tuple, ps: list[Tensor], tree: Tree, has_aux: bool, kwargs: dict,
                        started: dict[Any, int]) -> Callable:
    """``linearize``'s ``jvp_fn`` where its tape cannot serve: :func:`jvp` of ``f`` at ``primals``
    (as ``f`` was handed them: a write of its own goes into a copy), each generator ``f`` drew from
    set back to where ``f`` started (``started``), leaving no trace in the memory made before
    (see :func:`~minigrad_ckpt.no_trace.leaving_no_trace`) nor in the generators."""
    def on_copies(*args: Any) -> Any:  # (a write into an argument goes into a copy, whose tangent is the argument's)
        xs, t = flatten(args)
        return f(*unflatten(t, [_F.clone(x) if isinstance(x, Tensor) else x for x in xs]), **kwargs)

    def jvp_fn(*tangents: Any) -> Any:
        if len(tangents) != len(primals):
            raise RuntimeError(f"jvp_fn: got {len(tangents)} tangents for {len(primals)} primals")
        _matching(tangents, ps, tree, "jvp_fn", "tangents", cast=False)  # (the tape path's checks)
        start = next(_seq)  # (what the run writes into memory it makes is its result's: kept)
        after = {g: g.get_state() for g in started}
        try:
            for g, counter in started.items():
                g.set_state({**after[g], "counter": counter})
            with leaving_no_trace(only=lambda t: memory_made_before(t, start)):
                return jvp(on_copies, primals, tangents, has_aux=has_aux)[1]
        finally:
            for g, state in after.items():
                g.set_state(state)

    return jvp_fn


def _on_copies(f: Callable, primals: list[Tensor], written: dict[int, Tensor] | None = None) -> Callable:
    """``f`` called on recorded copies of the argument handles, what it writes into them put back
    into ``primals`` afterwards (and ``written``, where given, keeps a primal's value before that,
    by its place: ``linearize``'s rerun starts from it).

    ``torch.func.linearize`` is forward mode, where ``f`` may write into its arguments in place
    (the caller's tensors change, as in a plain call).  Here the arguments are the leaves the
    backward pass differentiates with respect to, and a leaf that requires grad refuses an
    in-place write; a copy is a recorded op (its backward passes the gradient through unchanged)
    that takes the write, and the write is recorded on the tape as any other.
    """
    def run(*handles: Tensor) -> Any:
        copies = [_F.clone(h) for h in handles]
        before = [c._version_box[0] for c in copies]
        result = f(*copies)
        for i, (p, c, v) in enumerate(zip(primals, copies, before)):
            if c._version_box[0] != v:
                if written is not None:
                    written[i] = _F.clone(p)
                with no_grad():
                    p.copy_(c)
        return result

    return run


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """PyTorch's ``torch.func.functionalize``: ``func`` with its in-place writes taken out, for
    graph capture.  Here every transform already follows in-place writes (forward mode carries
    their tangents, reverse mode records them out of place), and there is no graph to capture, so
    the function returned computes exactly what ``func`` does; ``remove`` is checked as PyTorch's."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. "
                           f"Valid options are:\n     remove='mutations': all inplace and out= operators will be "
                           f"removed from the program, and replaced with their out-of-place equivalents.\n     "
                           f"remove='mutations_and_views': In addition to the above, all aliasing operators "
                           f"{{view}} will be replaced with their non-aliasing counterparts, {{view}}_copy.\n")

    @functools.wraps(func)
    def functionalized(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return functionalized


def debug_unwrap(tensor: Any, *, recurse: bool = True) -> Any:
    """PyTorch's ``torch.func.debug_unwrap``: the plain tensor inside a transform's wrapper.  The
    transforms here pass plain Tensors (a tangent rides on the tensor itself), so it is ``tensor``."""
    return tensor
