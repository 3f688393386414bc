"""The norms' refusals of shapes, sizes and missing statistics say what PyTorch's say: torch 2.13's
words, pasted (its class, and each engine class is also the ``ValueError`` it raised before).

The engine's messages said the same things in its own words ("layer_norm: input of shape (3, 4) does
not end with normalized_shape (5,)"); a weight of the wrong size reached a reshape or a broadcast and
was refused there, or not at all (a ``(1, 4)`` weight for ``normalized_shape`` ``[4]``); a missing
running statistic in evaluation was a ``ValueError`` that is not PyTorch's ``RuntimeError``; one of the
two running statistics in training was taken and the other silently not updated.  Each message now
starts (after the engine's name) with PyTorch's; the engine's explanation follows in brackets.
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.nn import functional as F

nn = mg.nn
ones = mg.ones


def _eval(module):
    return module.eval()


CASES = [
    ('layer_norm input shape', RuntimeError, lambda: F.layer_norm(ones(3, 4), [5]),
     'Given normalized_shape=[5], expected input with shape [*, 5], but got input of size[3, 4]'),
    ('layer_norm 2-D normalized_shape', RuntimeError, lambda: F.layer_norm(ones(2, 3, 4), [2, 4]),
     'Given normalized_shape=[2, 4], expected input with shape [*, 2, 4], but got input of size[2, 3, 4]'),
    ('layer_norm input shorter than normalized_shape', RuntimeError, lambda: F.layer_norm(ones(4), [3, 4]),
     'Given normalized_shape=[3, 4], expected input with shape [*, 3, 4], but got input of size[4]'),
    ('layer_norm empty normalized_shape', RuntimeError, lambda: F.layer_norm(ones(3, 4), []),
     'Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got '
     'normalized_shape = []'),
    ('layer_norm weight', RuntimeError, lambda: F.layer_norm(ones(3, 4), [4], ones(3)),
     'Expected weight to be of same shape as normalized_shape, but got weight of shape [3] and normalized_shape = [4]'),
    ('layer_norm 2-D weight', RuntimeError, lambda: F.layer_norm(ones(3, 4), [4], ones(1, 4)),
     'Expected weight to be of same shape as normalized_shape, but got weight of shape [1, 4] and '
     'normalized_shape = [4]'),
    ('layer_norm bias', RuntimeError, lambda: F.layer_norm(ones(3, 4), [4], ones(4), ones(3)),
     'Expected bias to be of same shape as normalized_shape, but got bias of shape [3] and normalized_shape = [4]'),
    ('layer_norm bias without weight', RuntimeError, lambda: F.layer_norm(ones(3, 4), [4], None, ones(3)),
     'Expected bias to be of same shape as normalized_shape, but got bias of shape [3] and normalized_shape = [4]'),
    ('layer_norm weight before input shape', RuntimeError, lambda: F.layer_norm(ones(3, 4), [5], ones(3)),
     'Expected weight to be of same shape as normalized_shape, but got weight of shape [3] and normalized_shape = [5]'),
    ('layer_norm weight before bias', RuntimeError, lambda: F.layer_norm(ones(3, 4), [4], ones(3), ones(2)),
     'Expected weight to be of same shape as normalized_shape, but got weight of shape [3] and normalized_shape = [4]'),
    ('LayerNorm input shape', RuntimeError, lambda: nn.LayerNorm(5)(ones(3, 4)),
     'Given normalized_shape=[5], expected input with shape [*, 5], but got input of size[3, 4]'),
    ('LayerNorm 2-D input shape', RuntimeError, lambda: nn.LayerNorm([3, 5])(ones(3, 4)),
     'Given normalized_shape=[3, 5], expected input with shape [*, 3, 5], but got input of size[3, 4]'),
    ('rms_norm input shape', RuntimeError, lambda: F.rms_norm(ones(3, 4), [5]),
     'Given normalized_shape=[5], expected input with shape [*5], but got input of size[3, 4]'),
    ('rms_norm 2-D normalized_shape', RuntimeError, lambda: F.rms_norm(ones(2, 3, 4), [2, 4]),
     'Given normalized_shape=[2, 4], expected input with shape [*2, 4], but got input of size[2, 3, 4]'),
    ('RMSNorm input shape', RuntimeError, lambda: nn.RMSNorm(5)(ones(3, 4)),
     'Given normalized_shape=[5], expected input with shape [*5], but got input of size[3, 4]'),
    ('rms_norm empty normalized_shape', RuntimeError, lambda: F.rms_norm(ones(3, 4), []),
     'Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got '
     'normalized_shape = []'),
    ('rms_norm weight', RuntimeError, lambda: F.rms_norm(ones(3, 4), [4], ones(3)),
     'Expected weight to be of same shape as normalized_shape, but got weight of shape [3] and normalized_shape = [4]'),
    ('rms_norm 2-D weight', RuntimeError, lambda: F.rms_norm(ones(3, 4), [4], ones(1, 4)),
     'Expected weight to be of same shape as normalized_shape, but got weight of shape [1, 4] and '
     'normalized_shape = [4]'),
    ('group_norm 1-D input', RuntimeError, lambda: F.group_norm(ones(10), 3),
     'Expected at least 2 dimensions for input tensor but received 1'),
    ('group_norm 1-D input with weight', RuntimeError, lambda: F.group_norm(ones(4), 2, ones(3)),
     'Expected at least 2 dimensions for input tensor but received 1'),
    ('group_norm channels', RuntimeError, lambda: F.group_norm(ones(2, 10), 3),
     'Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 10] and '
     'num_groups=3'),
    ('group_norm divisibility before weight', RuntimeError, lambda: F.group_norm(ones(2, 5, 3), 2, ones(4)),
     'Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 5, 3] and '
     'num_groups=2'),
    ('group_norm weight', RuntimeError, lambda: F.group_norm(ones(2, 10, 3), 5, ones(4)),
     'Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [4] '
     'and input of shape [2, 10, 3]'),
    ('group_norm 2-D weight', RuntimeError, lambda: F.group_norm(ones(2, 4, 3), 2, ones(4, 1)),
     'Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape '
     '[4, 1] and input of shape [2, 4, 3]'),
    # PyTorch's bias message prints the weight's shape ("bias of shape [10]" for this call, "[0]" without a
    # weight): its phrase up to the shape, and the bias's shape
    ('group_norm bias', RuntimeError, lambda: F.group_norm(ones(2, 10, 3), 5, ones(10), ones(4)),
     'Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape '),
    ('group_norm bias, its shape', RuntimeError, lambda: F.group_norm(ones(2, 10, 3), 5, ones(10), ones(4)),
     'bias of shape [4] and input of shape [2, 10, 3]'),
    ('GroupNorm channels', RuntimeError, lambda: nn.GroupNorm(2, 4)(ones(2, 6, 3)),
     'Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [4] '
     'and input of shape [2, 6, 3]'),
    ('GroupNorm 1-D input', RuntimeError, lambda: nn.GroupNorm(2, 4)(ones(4)),
     'Expected at least 2 dimensions for input tensor but received 1'),
    ('GroupNorm without affine, channels not divisible', RuntimeError,
     lambda: nn.GroupNorm(2, 4, affine=False)(ones(2, 5, 3)),
     'Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 5, 3] and '
     'num_groups=2'),
    # torch's message has a run of 26 spaces after "dimensionality" (a line break inside its source's
    # string): its words, the spaces one
    ('local_response_norm 2-D input', ValueError, lambda: F.local_response_norm(ones(3, 4), 2),
     'Expected 3D or higher dimensionality input (got 2 dimensions)'),
    ('LocalResponseNorm 1-D input', ValueError, lambda: nn.LocalResponseNorm(2)(ones(4)),
     'Expected 3D or higher dimensionality input (got 1 dimensions)'),
    ('local_response_norm size 0', RuntimeError, lambda: F.local_response_norm(ones(2, 3, 4), 0),
     'kernel size should be greater than zero, but got kH: 0 kW: 1'),
    ('local_response_norm size 0, 4-D', RuntimeError, lambda: F.local_response_norm(ones(2, 3, 4, 5), 0),
     'kernel size should be greater than zero, but got kT: 0 kH: 1 kW: 1'),
    ('batch_norm evaluation without statistics', RuntimeError, lambda: F.batch_norm(ones(2, 3), None, None),
     'running_mean must be defined in evaluation mode'),
    ('batch_norm evaluation without running_var', RuntimeError, lambda: F.batch_norm(ones(2, 3), ones(3), None),
     'running_var must be defined in evaluation mode'),
    ('batch_norm missing before weight size', RuntimeError, lambda: F.batch_norm(ones(2, 3), None, None, ones(4)),
     'running_mean must be defined in evaluation mode'),
    ('batch_norm running_mean size before missing running_var', RuntimeError,
     lambda: F.batch_norm(ones(4, 3), ones(4), None),
     'running_mean should contain 3 elements not 4'),
    ('batch_norm training with running_mean only', ValueError,
     lambda: F.batch_norm(ones(4, 3), ones(3), None, training=True),
     'running_mean and running_var must either both be None or neither be None'),
    ('batch_norm training with running_var only', ValueError,
     lambda: F.batch_norm(ones(4, 3), None, ones(3), training=True),
     'running_mean and running_var must either both be None or neither be None'),
    ('batch_norm running_mean size', RuntimeError, lambda: F.batch_norm(ones(2, 3), ones(4), ones(3)),
     'running_mean should contain 3 elements not 4'),
    ('batch_norm running_var size', RuntimeError, lambda: F.batch_norm(ones(2, 3), ones(3), ones(4)),
     'running_var should contain 3 elements not 4'),
    ('batch_norm weight size', RuntimeError, lambda: F.batch_norm(ones(2, 3), ones(3), ones(3), ones(4)),
     'weight should contain 3 elements not 4'),
    ('batch_norm bias size', RuntimeError, lambda: F.batch_norm(ones(2, 3), ones(3), ones(3), ones(3), ones(4)),
     'bias should contain 3 elements not 4'),
    ('batch_norm running_mean before weight', RuntimeError,
     lambda: F.batch_norm(ones(2, 3), ones(4), ones(3), ones(5)),
     'running_mean should contain 3 elements not 4'),
    ('batch_norm training bias size', RuntimeError,
     lambda: F.batch_norm(ones(4, 3), None, None, None, ones(4), training=True),
     'bias should contain 3 elements not 4'),
    ('BatchNorm1d channels', RuntimeError, lambda: nn.BatchNorm1d(4)(ones(2, 3)),
     'running_mean should contain 3 elements not 4'),
    ('BatchNorm1d channels in evaluation', RuntimeError, lambda: _eval(nn.BatchNorm1d(4))(ones(2, 3)),
     'running_mean should contain 3 elements not 4'),
    ('BatchNorm2d channels', RuntimeError, lambda: nn.BatchNorm2d(4)(ones(2, 3, 2, 2)),
     'running_mean should contain 3 elements not 4'),
    ('BatchNorm1d untracked channels', RuntimeError,
     lambda: nn.BatchNorm1d(4, track_running_stats=False)(ones(2, 3)),
     'weight should contain 3 elements not 4'),
    ('instance_norm running_mean size', RuntimeError, lambda: F.instance_norm(ones(1, 3, 4), ones(4), ones(3)),
     'running_mean should contain 3 elements not 4'),
    ('instance_norm running_var before weight', RuntimeError,
     lambda: F.instance_norm(ones(1, 3, 4), ones(3), ones(5), ones(5)),
     'running_var should contain 3 elements not 5'),
    ('instance_norm weight size', RuntimeError, lambda: F.instance_norm(ones(1, 3, 4), None, None, ones(4)),
     'weight should contain 3 elements not 4'),
    ('instance_norm bias size', RuntimeError, lambda: F.instance_norm(ones(1, 3, 4), None, None, ones(3), ones(4)),
     'bias should contain 3 elements not 4'),
    ('instance_norm evaluation without statistics', RuntimeError,
     lambda: F.instance_norm(ones(2, 3, 4), use_input_stats=False),
     'Expected running_mean and running_var to be defined when use_input_stats is false'),
    ('instance_norm evaluation without running_var', RuntimeError,
     lambda: F.instance_norm(ones(2, 3, 4), ones(3), None, use_input_stats=False),
     'Expected running_mean and running_var to be defined when use_input_stats is false'),
    ('instance_norm missing before weight size', RuntimeError,
     lambda: F.instance_norm(ones(1, 3, 4), None, None, ones(4), use_input_stats=False),
     'Expected running_mean and running_var to be defined when use_input_stats is false'),
    ('instance_norm training with running_mean only', ValueError,
     lambda: F.instance_norm(ones(2, 3, 4), ones(3), None),
     'running_mean and running_var must either both be None or neither be None'),
    ('instance_norm 2-D input in training', ValueError, lambda: F.instance_norm(ones(2, 3)),
     'Expected more than 1 spatial element when training, got input size torch.Size([2, 3])'),
]


@pytest.mark.parametrize("label, error, call, words", CASES, ids=[case[0] for case in CASES])
def test_the_refusal_says_pytorchs_words(label, error, call, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value), f"{label}: {str(caught.value)!r} does not contain {words!r}"
    assert isinstance(caught.value, ValueError)  # (each was, or is, a ValueError too)


def test_the_engines_explanation_follows():
    with pytest.raises(RuntimeError) as caught:
        F.layer_norm(ones(3, 4), [5])
    assert str(caught.value) == ("layer_norm: Given normalized_shape=[5], expected input with shape [*, 5], but got "
                                 "input of size[3, 4] (the input of shape (3, 4) must end with normalized_shape (5,))")


def test_instance_norm_counts_channels_where_pytorch_counts_the_batch_times_them():
    """PyTorch normalizes the batch as one sample of N * C channels, so for a batch of 2 its words
    are "running_mean should contain 6 elements not 8"; the engine's count the channels and the
    values given."""
    with pytest.raises(RuntimeError, match=r"running_mean should contain 3 elements not 4 \(one value per channel"):
        F.instance_norm(ones(2, 3, 4), ones(4), ones(3))


def test_a_weight_of_the_right_count_and_another_shape_is_refused_in_the_engines_words():
    """PyTorch's kernel reads any (3, 1) weight as 3 values (its message would be about the count);
    the engine refuses the shape, in its own words."""
    with pytest.raises(RuntimeError, match=r"^batch_norm: weight must have shape \(3,\), one value per channel of "
                                           r"the input of shape \(2, 3\), got \(3, 1\)$"):
        F.batch_norm(ones(2, 3), ones(3), ones(3), ones(3, 1))


def test_group_norm_without_affine_keeps_the_engines_channel_refusal():
    """PyTorch's GroupNorm(2, 4, affine=False) normalizes 6 channels (num_channels is not used);
    the engine's refuses them, as before, in its words."""
    with pytest.raises(RuntimeError, match=r"input of shape \(2, 6, 3\) needs 4 channels on axis 1"):
        nn.GroupNorm(2, 4, affine=False)(ones(2, 6, 3))


def test_the_checks_pass_what_they_should():
    assert F.layer_norm(ones(3, 4), [4], ones(4), ones(4)).shape == (3, 4)
    assert F.layer_norm(ones(3, 4), 4, [1.0] * 4).shape == (3, 4)  # a list for a weight is read as a tensor
    assert F.rms_norm(ones(3, 4), [4], ones(4)).shape == (3, 4)
    assert F.group_norm(ones(2, 4, 3), 2, ones(4), ones(4)).shape == (2, 4, 3)
    assert F.batch_norm(ones(2, 3), ones(3), ones(3), ones(3), ones(3)).shape == (2, 3)
    assert F.batch_norm(ones(4, 3), None, None, training=True).shape == (4, 3)
    assert F.instance_norm(ones(2, 3, 4), ones(3), ones(3), ones(3), ones(3)).shape == (2, 3, 4)
    assert nn.BatchNorm1d(4, track_running_stats=False, affine=False)(ones(2, 3)).shape == (2, 3)
