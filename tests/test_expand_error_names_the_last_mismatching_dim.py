"""``expand`` and ``broadcast_to`` of a tensor whose sizes differ from the target's in more than one
dim name the *last* such dim, as PyTorch's (which checks from the right, as it broadcasts):
``zeros(1, 3, 32, 32).expand(2, 3, 8, 8)`` is "... (8) must match the existing size (32) at
non-singleton dimension 3", where the engine named dimension 2. Found porting the UvA deep-learning
tutorials (a GoogleNet's example input expanded to a smaller image). The messages below are torch
2.13's on the same shapes."""
import pytest

import minigrad_ckpt as mg

CASES = [
    ((1, 3, 32, 32), (2, 3, 8, 8), "The expanded size of the tensor (8) must match the existing size (32) at "
                                   "non-singleton dimension 3.  Target sizes: [2, 3, 8, 8]"),
    ((2, 3), (4, 5), "The expanded size of the tensor (5) must match the existing size (3) at non-singleton "
                     "dimension 1.  Target sizes: [4, 5]"),
    ((3, 1, 2), (5, 3, 7, 4), "The expanded size of the tensor (4) must match the existing size (2) at "
                              "non-singleton dimension 3.  Target sizes: [5, 3, 7, 4]"),
    ((2, 3), (4, 3), "The expanded size of the tensor (4) must match the existing size (2) at non-singleton "
                     "dimension 0.  Target sizes: [4, 3]"),
]


@pytest.mark.parametrize("shape,target,message", CASES)
def test_expand_names_the_last_mismatching_dim(shape, target, message):
    with pytest.raises(RuntimeError) as caught:
        mg.zeros(shape).expand(*target)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize("shape,target,message", CASES)
def test_broadcast_to_names_the_last_mismatching_dim(shape, target, message):
    with pytest.raises(RuntimeError) as caught:
        mg.broadcast_to(mg.zeros(shape), target)
    assert str(caught.value).startswith(message)
