"""``out=`` on ``eye`` and on ``hstack``/``vstack``/``row_stack``/``dstack``/``column_stack``, as PyTorch's.

PyTorch's tests write ``torch.eye(n, out=t)`` and ``torch.hstack(ts, out=t)``; here they were a
``TypeError`` (no such keyword).  ``eye`` takes the creation rule (made in ``out``'s dtype, as
``zeros``), the stacks ``cat``'s (a cast PyTorch allows, else its TypeError).  Values by hand.
"""

import numpy as np
import pytest

import minigrad_ckpt as mg


def test_eye_writes_into_out_in_its_dtype():
    out = mg.empty(0, dtype=mg.int64)
    assert mg.eye(3, 2, out=out) is out
    assert out.dtype == mg.int64 and out.tolist() == [[1, 0], [0, 1], [0, 0]]


@pytest.mark.parametrize("name, shape", [("hstack", (4,)), ("vstack", (2, 2)), ("row_stack", (2, 2)),
                                         ("dstack", (1, 2, 2)), ("column_stack", (2, 2))])
def test_the_stacks_write_into_out(name, shape):
    a, b = mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0])
    out = mg.empty(0)
    assert getattr(mg, name)([a, b], out=out) is out
    np.testing.assert_array_equal(out.numpy(), getattr(np, name if name != "row_stack" else "vstack")(
        [[1.0, 2.0], [3.0, 4.0]]))
    assert out.shape == shape


def test_a_stack_refuses_floats_into_an_integer_out_as_cat():
    with pytest.raises(TypeError, match="can't be cast"):
        mg.hstack([mg.tensor([1.0]), mg.tensor([2.0])], out=mg.empty(0, dtype=mg.int64))


def test_a_window_of_negative_length_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="non-negative window_length") as caught:
        mg.hann_window(-1)
    assert isinstance(caught.value, ValueError)
