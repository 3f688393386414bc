"""PyTorch's refusals of a normalization's arguments, in its order and words.

Programs and PyTorch's own tests match these words (``assertRaisesRegex``), so each message starts
with PyTorch's phrase and the engine's explanation follows in brackets.  The norms run on every
step: their callers make one comparison per argument and call these only to refuse, so the words
are built only then.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ...functional import _tensor
from ...functional.errors import InputMismatch


def _shape(t: Any) -> tuple[int, ...]:
    return tuple(_tensor(t).shape)


def _numel(t: Any) -> int:
    return math.prod(_shape(t))


def trailing_shape_refusal(name: str, input_shape: tuple, shape: tuple, params: Iterable[tuple[str, Any]],
                           star: str = ", ") -> InputMismatch | None:
    """``layer_norm``'s and ``rms_norm``'s refusal, in PyTorch's order: an empty ``normalized_shape``,
    a weight or bias (``params``: name and tensor, None where not given) of another shape, an input
    not ending with it -- or None where nothing is wrong.  ``star`` is what PyTorch writes after
    ``*`` in the input's expected shape (``[*, 5]`` for ``layer_norm``, ``[*5]`` for ``rms_norm``)."""
    listed = list(shape)
    if not shape:
        return InputMismatch(f"{name}: Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                             f"least one element, but got normalized_shape = [] (it names the trailing dims to "
                             f"normalize over)")
    for what, t in params:
        if t is not None and _shape(t) != shape:
            return InputMismatch(f"{name}: Expected {what} to be of same shape as normalized_shape, but got {what} "
                                 f"of shape {list(_shape(t))} and normalized_shape = {listed} (one {what} per "
                                 f"normalized element)")
    if input_shape[len(input_shape) - len(shape):] != shape:
        return InputMismatch(f"{name}: Given normalized_shape={listed}, expected input with shape "
                             f"[*{star}{str(listed)[1:]}, but got input of size{list(input_shape)} (the input of "
                             f"shape {input_shape} must end with normalized_shape {shape})")
    return None


def group_norm_refusal(input_shape: tuple, num_groups: int, weight: Any, bias: Any,
                       name: str = "group_norm") -> InputMismatch | None:
    """``group_norm``'s refusal in PyTorch's order -- fewer than 2 dims, channels not divisible by
    ``num_groups``, a weight or bias that is not one value per channel -- or None."""
    if len(input_shape) < 2:
        return InputMismatch(f"{name}: Expected at least 2 dimensions for input tensor but received "
                             f"{len(input_shape)} (input of shape {input_shape}: channels are on axis 1)")
    c = input_shape[1]
    if c % num_groups:
        return InputMismatch(f"{name}: Expected number of channels in input to be divisible by num_groups, but "
                             f"got input of shape {list(input_shape)} and num_groups={num_groups} (input of shape "
                             f"{input_shape} needs channels (axis 1) divisible by num_groups={num_groups})")
    for what, t in (("weight", weight), ("bias", bias)):
        # (PyTorch's bias message prints the weight's shape; this one prints the bias's)
        if t is not None and _shape(t) != (c,):
            return InputMismatch(f"{name}: Expected {what} to be a vector of size equal to the number of "
                                 f"channels in input, but got {what} of shape {list(_shape(t))} and input of shape "
                                 f"{list(input_shape)} (one {what} per channel: shape ({c},))")
    return None


def per_channel_refusal(name: str, input_shape: tuple, params: Iterable[tuple[str, Any]],
                        required: tuple[str, ...] = ()) -> InputMismatch | None:
    """``batch_norm``'s and ``instance_norm``'s refusal of running statistics, a weight or a bias
    (``params``, in PyTorch's order; None where not given) that is not one value per channel -- or
    of one named in ``required`` (the running statistics in evaluation) that is missing.  PyTorch's
    words where the count differs; the engine's where the count is right but the shape is not
    ``(channels,)`` (PyTorch's kernels take any shape of that many elements).  None if all is well."""
    channels = input_shape[1]
    for what, t in params:
        if t is None:
            if what in required:
                return InputMismatch(f"{name}: {what} must be defined in evaluation mode (the running statistics "
                                     f"normalize the input when training=False)")
            continue
        if _shape(t) == (channels,):
            continue
        if _numel(t) != channels:
            return InputMismatch(f"{name}: {what} should contain {channels} elements not {_numel(t)} (one value per "
                                 f"channel: shape ({channels},) for input of shape {input_shape})")
        return InputMismatch(f"{name}: {what} must have shape ({channels},), one value per channel of the input "
                             f"of shape {input_shape}, got {_shape(t)}")
    return None


def missing_running_stats(name: str, running_mean: Any, running_var: Any, training: bool) -> Exception | None:
    """The refusal of running statistics absent where they are needed: in training, one without the
    other (the batch statistics would update only one of them), PyTorch's ``ValueError``; in
    ``instance_norm``'s evaluation, either, its ``RuntimeError`` (here also the ``ValueError`` the
    engine raised before) -- or None.  (``batch_norm``'s evaluation: :func:`per_channel_refusal`.)"""
    if training:
        if (running_mean is None) is (running_var is None):
            return None
        return ValueError(f"{name}: running_mean and running_var must either both be None or neither be None "
                          f"(training updates both)")
    if running_mean is not None and running_var is not None:
        return None
    return InputMismatch(f"{name}: Expected running_mean and running_var to be defined when use_input_stats is "
                         f"false (they normalize the input then)")
