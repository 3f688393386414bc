"""A custom ``mg.autograd.Function`` whose ``forward`` saves something else when a checkpoint replays it.

The replay runs the user's ``forward`` again to rebuild the tensors it saved that are neither an
input nor an output.  The segment checked the replayed *output* against the forward pass's
(shape and dtype; bytes with ``determinism_check="value"``), but not what ``save_for_backward``
saved: a ``forward`` that saved a tensor of another shape or dtype, or another number of tensors,
the second time ran ``backward`` on values the forward pass never had -- a silently wrong
gradient (off by 3.1 in the shape case below).  PyTorch's checkpoint refuses it (its
``determinism_check="default"`` compares the recomputed saved tensors' count, shapes and dtypes),
and so does this engine's: a ``CheckpointError`` naming the node.  Found by running PyTorch's
checkpoint tests and their seams against the engine.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck

X = np.random.RandomState(5).randn(3, 4)


def changing(variant):
    """A Function whose ``forward`` saves ``exp(x)`` the first time, and ``variant`` of it after."""
    calls = [0]

    class SavesExp(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            calls[0] += 1
            w = x.exp()
            if calls[0] > 1:
                w = {"same": w, "shape": w[:2], "dtype": w.float(), "values": w * 3}.get(variant, w)
            saved = (w, x.sin()) if variant == "count" and calls[0] > 1 else (w,)
            ctx.save_for_backward(*saved)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * ctx.saved_tensors[0].sum()

    return SavesExp, calls


def backward_of(variant, determinism_check):
    f, calls = changing(variant)
    x = mg.tensor(X, requires_grad=True)
    y = ck.checkpoint(lambda t: f.apply(t.sin()), x, use_reentrant=False, determinism_check=determinism_check)
    y.sum().backward()
    assert calls[0] == 2  # the replay ran forward again
    return x.grad.numpy()


def expected():
    return np.exp(np.sin(X)).sum() * np.cos(X)


@pytest.mark.parametrize("check", ["shape", "value"])
@pytest.mark.parametrize("variant", ["shape", "dtype", "count"])
def test_a_replay_that_saves_other_shapes_dtypes_or_counts_is_refused(variant, check):
    with pytest.raises(ck.CheckpointError, match=r"diverged at node #\d+ \(SavesExp.*save"):
        backward_of(variant, check)


def test_other_values_are_refused_with_the_value_check_and_taken_without_it():
    with pytest.raises(ck.CheckpointError, match="save_for_backward saved has other values"):
        backward_of("values", "value")
    # without it, as PyTorch's recomputation: the replayed values are what backward reads
    np.testing.assert_allclose(backward_of("values", "shape"), 3 * expected())


@pytest.mark.parametrize("check", ["shape", "value", "none"])
def test_a_forward_that_saves_the_same_again_gives_the_gradient(check):
    np.testing.assert_allclose(backward_of("same", check), expected())


def test_the_none_check_takes_what_the_replay_saved():
    np.testing.assert_allclose(backward_of("shape", "none"), np.exp(np.sin(X))[:2].sum() * np.cos(X))
