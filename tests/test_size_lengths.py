"""``mg.Size`` reads its lengths as PyTorch's ``torch.Size`` does.

Found by running test_torch.py's ``test_Size`` and ``test_Size_scalar`` on the engine: ``Size`` was
a bare tuple subclass, so ``mg.Size(mg.ones(3))`` was a "shape" of three 0-d float tensors instead of
a TypeError, and ``mg.Size([0, 1, mg.tensor(2)])`` kept the tensor where PyTorch keeps the int 2.
torch 2.13: ``torch.Size([1.5])`` is TypeError "torch.Size() takes an iterable of 'int' (item 0 is
'float')"; a bool, a NumPy integer, an integer tensor of one element are lengths.
"""
import numpy as np
import pytest

import minigrad_ckpt as mg


def test_integer_like_lengths_become_ints():
    s = mg.Size([0, 1, mg.tensor(2), mg.tensor([3]), np.int64(4), True])
    assert s == (0, 1, 2, 3, 4, 1)
    assert all(type(d) is int for d in s)
    assert s.numel() == 0 and isinstance(s, mg.Size)


@pytest.mark.parametrize("bad, name", [([1.5], "float"), ([mg.tensor(2.0)], "Tensor"), (["a"], "str"),
                                       ([None], "NoneType")])
def test_other_lengths_are_pytorch_s_type_error(bad, name):
    with pytest.raises(TypeError, match=rf"torch.Size\(\) takes an iterable of 'int' \(item 0 is '{name}'\)"):
        mg.Size(bad)


def test_a_float_tensor_is_not_a_shape():
    with pytest.raises(TypeError, match="item 0 is 'Tensor'"):
        mg.Size(mg.ones(3))


def test_iterables_and_the_empty_size():
    assert mg.Size(iter([1, 2])) == (1, 2) and mg.Size(range(1, 3)) == (1, 2)
    assert mg.Size() == () and isinstance(mg.Size() + (2,), mg.Size)
