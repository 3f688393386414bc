"""``AdaptiveLogSoftmaxWithLoss``: a softmax over a large vocabulary, paid for by the words that occur.

Grave et al.'s *Efficient softmax approximation for GPUs* splits the classes,
sorted by frequency, at ``cutoffs``: the frequent ones (the *shortlist*,
``[0, cutoffs[0])``) and one entry per rarer *cluster* form the head, a softmax
every example pays for; a cluster's own softmax runs only on the examples
whose target lies in it, through a projection that shrinks by ``div_value``
per cluster (rare words get fewer features).  The log-probability of a class
in cluster ``i`` is the head's log-probability of entering that cluster plus
the cluster's log-probability of the class.

Every step is an ordinary recorded op (index_select, log_softmax, gather,
index_add), so gradients, forward mode, transforms and checkpointing follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ..functional.shape import concatenate
from ..tensor import Tensor
from . import functional as F
from .containers import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]


class _ASMoutput(NamedTuple):
    """What :meth:`AdaptiveLogSoftmaxWithLoss.forward` returns, under PyTorch's names."""

    output: Tensor  # each example's log-probability of its target
    loss: Tensor    # the mean negative log-likelihood


def _checked_cutoffs(cutoffs: Sequence[int], n_classes: int) -> list[int]:
    cutoffs = list(cutoffs)
    if not cutoffs:
        raise ValueError("cutoffs should be a sequence of length larger than 0")
    if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
        raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                         "order, where each value is between 1 and n_classes-1")
    return cutoffs


class AdaptiveLogSoftmaxWithLoss(Module):
    """PyTorch's ``nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value=4.0,
    head_bias=False)`` (see the module docstring).

    ``forward(input, target)`` returns ``(output, loss)``: ``output[i]`` the
    log-probability of ``target[i]``, ``loss`` their mean negated; ``input`` is
    ``(N, in_features)`` with ``target`` ``(N,)``, or ``(in_features,)`` with a 0-d
    target.  ``log_prob(input)`` gives every class's log-probability,
    ``predict(input)`` the most probable class, computing the clusters only for
    the rows whose head prefers one.
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        cutoffs = _checked_cutoffs(cutoffs, n_classes)
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))  # (PyTorch's rounding: a float floor, then int)
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                                        Linear(hidden, size, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for to_hidden, to_cluster in self.tail:
            to_hidden.reset_parameters()
            to_cluster.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """``(output, loss)``: each row's log-probability of its target, and their mean negated."""
        batched = _check_shapes(input_, target_)
        x = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        clusters = self._clusters(target)
        head_index = target  # where each row reads the head: its class, or its cluster's entry
        for i, rows in clusters:
            head_index = head_index.index_fill(0, rows, self.shortlist_size + i)
        head = F.log_softmax(self.head(x), dim=1)
        output = head.gather(1, head_index.unsqueeze(1)).squeeze(1)
        # each cluster's part added onto the head's rather than copied into zeros: a buffer of zeros is
        # a constant a checkpoint would have to keep, and the sum is the same (addition commutes exactly)
        for i, rows in clusters:
            logprob = F.log_softmax(self.tail[i](x.index_select(0, rows)), dim=1)
            inside = (target.index_select(0, rows) - self.cutoffs[i]).unsqueeze(1)
            output = output.index_add(0, rows, logprob.gather(1, inside).squeeze(1))
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _clusters(self, target: Tensor) -> list[tuple[int, Tensor]]:
        """``(i, rows)`` for each tail cluster ``i`` that some rows' targets fall in; every target checked."""
        bounds, found, covered = [0] + self.cutoffs, [], 0
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            rows = ((target >= low) & (target < high)).nonzero().flatten()
            covered += rows.numel()
            if i > 0 and rows.numel():
                found.append((i - 1, rows))
        if covered != target.shape[0]:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        return found

    def _full_log_prob(self, x: Tensor, head_output: Tensor) -> Tensor:
        """Every class's log-probability, given the head's output for ``x``."""
        head = F.log_softmax(head_output, dim=1)
        parts = [head[:, :self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            parts.append(F.log_softmax(cluster(x), dim=1) + head[:, self.shortlist_size + i].unsqueeze(1))
        return concatenate(parts, axis=1)

    def log_prob(self, input: Tensor) -> Tensor:
        """``(N, n_classes)``: the log-probability of every class for each row of ``input`` ``(N, in_features)``."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most probable class of each row, as ``log_prob(input).argmax(dim=1)`` (equal to it), with the
        clusters computed only for the rows whose head's best entry is a cluster: a shortlist class that
        beats every cluster's entry beats every class in the clusters too."""
        head_output = self.head(input)
        best = head_output.argmax(dim=1)
        outside = best >= self.shortlist_size
        if not outside.any():
            return best
        if outside.all():
            return self._full_log_prob(input, head_output).argmax(dim=1)
        rows = outside.nonzero().flatten()
        chosen = self._full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows)).argmax(dim=1)
        return best.index_copy(0, rows, chosen)


def _check_shapes(input: Tensor, target: Tensor) -> bool:
    """PyTorch's checks of ``forward``'s shapes; whether the call is batched (a 1-d target)."""
    if target.dim() == 1:
        if input.shape[0] != target.shape[0]:
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        if input.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                               f"{tuple(input.shape)}")
        return True
    if target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                               f"{tuple(input.shape)}")
        return False
    raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
