"""Which in-place writes ``vmap``'s function may make: none that the loop would get wrong.

``vmap`` runs its function once per example (:mod:`.vmap`).  A write into a
tensor the function closes over -- made before ``vmap`` was called, or a view
of one, or an argument passed whole (``in_dims=None``) -- happens there once
per example, where PyTorch's batching sees one call on the whole batch:

* a *batched* value (one that depends on the example: made from the mapped
  arguments) written into such an *unbatched* tensor: PyTorch refuses it
  ("vmap: inplace arithmetic(self, *extra_args) is not possible ...", or the
  broadcast error of ``buf.add_(x)``), as a BatchNorm's running statistics in
  training mode.  The loop would sum the examples into it (``buf.add_(x)``),
  and a returned ``buf`` would be stacked ``B`` times with its final value.
  Refused here with PyTorch's words.
* an *unbatched* value: PyTorch writes it once.  The loop writes it once per
  example: the same for a write that sets a value (``fill_``, ``zero_``,
  ``copy_``, ``buf[i] = v``: the last write wins, and every one wrote the same),
  not for one that reads the old value too (``buf.add_(1)`` would add ``B``).
  So the setting writes are allowed and the others refused: the function
  would not compute what PyTorch's does.

Writes into the function's own tensors (made in the call) and into the
mapped arguments' slices are the examples' own: allowed, as in PyTorch.

A random fill (``buf.normal_()``, ``nn.init.trunc_normal_(buf)``) writes a
draw of ``vmap``'s randomness, which the loop makes under each ``randomness``
mode as PyTorch's batching does: into such an unbatched tensor, ``"same"``
writes the one draw of the batch (every example draws it; the last write
wins), ``"different"`` is refused with PyTorch's words (one tensor cannot hold
a draw per example), and ``"error"`` refuses the draw.  So is a fill drawn
with a batched operand (``buf.bernoulli_(p)``, ``p`` mapped): a batched value.
An in-place dropout of such a tensor multiplies it by a mask: under
``"different"`` the example's own, a batched value; under ``"same"`` an
update that reads the old value, made once per example (refused).

A tensor is told batched or not by where its memory comes from, as
:mod:`.captures` tells the tensors a transform closes over: ``vmap`` opens a
:class:`BatchScope` that stamps the tensors made while it is open
(:data:`~minigrad_ckpt.tensor.transform_births`); a value made in the call is
counted batched (a constant the function makes is too: refused, where
PyTorch writes it once -- a refusal, never a wrong value).
"""

from __future__ import annotations

from typing import Any

from ..tensor import RandomFill, Tensor, _seq, set_batch_write_guard
from .captures import ScopeStack, memory_made_before
from .transforms import RANDOM_DRAW_REFUSED

__all__ = ["BatchScope", "BATCHED_WRITE_REFUSED", "shared_by_the_examples"]

#: PyTorch's words (torch 2.13)
BATCHED_WRITE_REFUSED = ("vmap: {what}: inplace arithmetic(self, *extra_args) is not possible because there exists a "
                         "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
                         "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to use "
                         "out-of-place operators instead of inplace arithmetic.")
DATA_REFUSED = "mutating directly with `.data` under vmap transform is not allowed."
REPEATED_WRITE_REFUSED = ("vmap: {what}: an in-place update of a tensor the function closes over (or an argument "
                          "with in_dims=None) would happen once per example here (the function runs once per "
                          "example), where PyTorch's vmap makes it once for the batch (or refuses it, where the "
                          "value depends on the example); make the update outside vmap, or pass the tensor as a "
                          "mapped argument")
DIFFERENT_FILL_REFUSED = ("vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will "
                          "appear like same randomness. If this is necessary for your usage, please file an issue "
                          "with functorch.")

#: writes whose result does not read the old value: the same write made again changes nothing
_SETTING = frozenset(("fill_", "zero_", "copy_", "__setitem__", ".data"))
#: the writes whose operand is the written value (the others, ``relu_``, ``index_add_(0, i, v)``,
#: hand the guard their result, made in the call whatever their operands: told apart by name)
_OWN_OPERAND = _SETTING | {"add_", "subtract_", "multiply_", "divide_", "set_"}  # (.data = v: PyTorch's words)
_PYTORCH_NAME = {"subtract_": "sub_", "multiply_": "mul_", "divide_": "div_"}
#: the in-place writes of a random mask times the old value (not rrelu's, random in training only;
#: PyTorch's vmap supports no rrelu at all)
_RANDOM_MASKS = frozenset(f"{name}(inplace=True)" for name in (
    "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"))


class BatchScope:
    """One ``vmap`` call's loop over the examples: ``with BatchScope(mapped, randomness):`` around it, where
    ``mapped`` lists the tensors mapped over a dimension (their slices are the examples);
    ``randomness`` is the vmap's mode."""

    def __init__(self, mapped: list[Tensor], randomness: str) -> None:
        self.start = next(_seq)
        self.mapped = {id(t._version_box) for t in mapped}
        self.randomness = randomness

    def __enter__(self) -> BatchScope:
        _vmaps.push(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _vmaps.pop(self)

    def unbatched(self, t: Tensor) -> bool:
        """Whether ``t``'s memory is the same for every example: not a mapped argument's, and made
        before the loop began (itself, or a live tensor sharing its memory)."""
        return id(t._version_box) not in self.mapped and memory_made_before(t, self.start)

    def check(self, target: Tensor, what: str, value: Any) -> None:
        if not self.unbatched(target):
            return
        if isinstance(value, RandomFill):
            return self._check_fill(what, value.operand)
        if what in _RANDOM_MASKS and self.randomness == "different":
            raise RuntimeError(BATCHED_WRITE_REFUSED.format(what=what))  # (its mask: the example's own draw)
        name = _PYTORCH_NAME.get(what, what)
        if what in _OWN_OPERAND and isinstance(value, Tensor) and not self.unbatched(value):
            raise RuntimeError(DATA_REFUSED if what == ".data" else BATCHED_WRITE_REFUSED.format(what=name))
        if what not in _SETTING or value is None:
            raise RuntimeError(REPEATED_WRITE_REFUSED.format(what=name))


    def _check_fill(self, what: str, operand: Any) -> None:
        """A random fill of an unbatched tensor: allowed where every example writes the same draw."""
        if self.randomness == "error":
            raise RuntimeError(RANDOM_DRAW_REFUSED)
        if isinstance(operand, Tensor) and not self.unbatched(operand):
            raise RuntimeError(BATCHED_WRITE_REFUSED.format(what=what))
        if self.randomness == "different":
            raise RuntimeError(DIFFERENT_FILL_REFUSED)


def refuse_unbatched_write(target: Tensor, what: str, value: Any) -> None:
    """The guard: every open ``vmap`` (nested ones too: a value batched at the outer level may not
    go into a tensor the outer function closes over, whatever the inner one maps)."""
    for scope in _vmaps.scopes:
        scope.check(target, what, value)


def shared_by_the_examples(t: Tensor) -> bool:
    """Whether an open ``vmap`` loop hands ``t`` to every example alike (the function closes over it):
    what one example's call puts in its place would reach the next example's call."""
    return any(scope.unbatched(t) for scope in _vmaps.scopes)


_vmaps = ScopeStack(set_batch_write_guard, refuse_unbatched_write)  # the open vmap loops' BatchScopes
