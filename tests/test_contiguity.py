"""``is_contiguous()`` and ``contiguous()`` tell the truth about the memory layout, as PyTorch's do.

They answered ``True`` and returned ``self`` for every tensor, a transpose
included: code that copies a non-contiguous tensor before handing its memory on
(``x.contiguous().numpy()`` to a C routine) got the strided view.  The
expected answers are PyTorch 2.13's for the same expressions.  (One layout
differs on purpose: ``clone()`` makes a row-major copy here, where PyTorch's
keeps the strides of a non-contiguous tensor.)
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

# (expression, torch 2.13's x.is_contiguous() for it) on x of shape (3, 4) unless the expression builds its own
CASES = [
    (lambda x: x, True),
    (lambda x: x.T, False),
    (lambda x: x.transpose(0, 1), False),
    (lambda x: x.permute(1, 0), False),
    (lambda x: x[1:], True),
    (lambda x: x[:, 1:], False),
    (lambda x: x[::2], False),
    (lambda x: x[1], True),
    (lambda x: x[:, 1], False),
    (lambda x: x.unsqueeze(0), True),
    (lambda x: x[:1].expand(3, 4), False),
    (lambda x: x.reshape(4, 3), True),
    (lambda x: x.T + 1, False),  # an elementwise result keeps its input's layout
    (lambda x: x.T.contiguous(), True),
    (lambda x: x[:, :1], False),
    (lambda x: x[:1, :], True),
    (lambda x: x.new_zeros((0, 4)), True),
]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_is_contiguous_is_pytorchs_answer(case, device):
    make, want = CASES[case]
    x = mg.tensor(np.arange(12.0).reshape(3, 4)).to(device)
    assert make(x).is_contiguous() is want


def test_contiguous_is_the_tensor_itself_or_a_differentiable_row_major_copy():
    x = mg.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    assert x.contiguous() is x
    t = x.T
    c = t.contiguous()
    assert c is not t and c.is_contiguous() and np.array_equal(c.numpy(), t.numpy())
    assert c.numpy().flags.c_contiguous
    (c * mg.tensor(np.arange(12.0).reshape(4, 3))).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.arange(12.0).reshape(4, 3).T)


def test_a_memory_format_by_name_is_refused():  # PyTorch's TypeError: a torch.memory_format, not a str
    x = mg.zeros((1, 2, 3, 4))
    for method in (x.is_contiguous, x.contiguous):
        with pytest.raises(TypeError, match="memory_format must be"):
            method(memory_format="channels_last")


# (expression on x = arange(12.0, float32).reshape(3, 4), torch 2.13's stride(), its data_ptr() - x's
# or None for new memory)
STRIDES = [
    ("x", (4, 1), 0),
    ("x.T", (1, 4), 0),
    ("x[1:]", (4, 1), 16),
    ("x[:, 1:]", (4, 1), 4),
    ("x[::2]", (8, 1), 0),
    ("x[:, 1]", (4,), 4),
    ("x.unsqueeze(1)", (4, 4, 1), 0),
    ("x[:1].expand(3, 4)", (0, 1), 0),
    ("x.reshape(4, 3)", (3, 1), 0),
    ("x.T + 1", (1, 4), None),
    ("x.T.contiguous()", (3, 1), None),
]


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("expr, stride, offset", STRIDES)
def test_stride_and_data_ptr_are_pytorchs(expr, stride, offset, device):
    x = mg.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4)).to(device)
    v = eval(expr)
    assert v.stride() == stride and all(v.stride(d) == s for d, s in enumerate(stride))
    assert v.stride(-1) == stride[-1]
    if offset is None:  # new memory: outside x's 48 bytes
        assert not x.data_ptr() <= v.data_ptr() < x.data_ptr() + 48
    else:
        assert v.data_ptr() - x.data_ptr() == offset


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_contiguous_at_the_seams_transforms_checkpointing_and_in_place_writes(device):
    from minigrad_ckpt import checkpoint as ck

    values = np.arange(12.0).reshape(3, 4)
    weights = mg.tensor(np.arange(12.0).reshape(4, 3) / 7).to(device)  # closed over

    def f(x):
        c = x.T.contiguous()
        assert c.is_contiguous() and c.stride() == (3, 1)
        return (c * weights).sum()

    want = (np.arange(12.0).reshape(4, 3) / 7).T
    got = mg.func.grad(f)(mg.tensor(values).to(device))
    assert np.array_equal(got.numpy(), want)
    plain, ckpt = (mg.tensor(values).to(device).requires_grad_() for _ in range(2))
    f(plain).backward()
    ck.checkpoint(f, ckpt).backward()
    assert np.array_equal(ckpt.grad.numpy(), plain.grad.numpy())
    # the copy is a tensor of its own: an in-place change to it is recorded, the base untouched
    x = mg.tensor(values).to(device).requires_grad_()
    c = x.T.contiguous()
    c.mul_(3.0)
    (c * weights).sum().backward()
    assert np.array_equal(x.grad.numpy(), 3.0 * want) and np.array_equal(x.numpy(), values)


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("expr", ["mg.zeros(0, device=d)", "mg.zeros(3, 0, device=d)", "mg.zeros(5, device=d)[5:]",
                                  "mg.zeros(5, device=d)[2:2]", "mg.zeros(2, 3, device=d)[:, 1:1].t()"])
def test_an_empty_tensors_data_ptr_is_zero(expr, device):
    assert eval(expr, {"mg": mg, "d": device}).data_ptr() == 0  # torch 2.13: no first element, no address
