"""PyTorch's matrix products compute in one dtype: ``a @ b``, ``a.matmul(b)``, ``mg.mm``/``bmm``/``mv``,
``x.dot``/``vdot``/``inner``, ``mg.addmm``/``addmv``/``baddbmm``/``addbmm`` (and their in-place
methods), ``mg.linalg.matmul``, ``mg.linalg.multi_dot`` and ``mg.chain_matmul`` refuse operands of two
dtypes with its ``RuntimeError``, where the engine promoted them as NumPy does.  Found porting makemore
part 1 in float64: ``F.one_hot(xs, num_classes=27).float() @ W`` with a float64 ``W`` ran here (a float64
result) where torch 2.13 raises "expected m1 and m2 to have the same dtype, but got: float != double".
``mg.matmul``, ``mg.dot``, ``mg.inner``, ``mg.tensordot``, ``mg.einsum`` (NumPy's functions) and PyTorch's
``outer``/``ger``/``addr`` (which promote there too) keep promoting.

Expected words: torch 2.13 on the same calls.
"""
from __future__ import annotations

import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

F32, F64, I64, I32 = mg.float32, mg.float64, mg.int64, mg.int32


def ones(shape, dtype, device="cpu"):
    return mg.ones(shape, dtype=dtype, device=device)


# (shape of a, shape of b, dtype of a, dtype of b, torch 2.13's words for a @ b)
MATMUL = [
    ((3,), (3,), F32, F64, "dot : expected both vectors to have same dtype, but found Float and Double"),
    ((3,), (3,), I32, I64, "dot : expected both vectors to have same dtype, but found Int and Long"),
    ((2, 3), (3,), F32, F64, "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    ((1, 2, 3), (3,), I64, F32, "addmv input tensors must have the same dtype, but got Float, Long, and Float"),
    ((3,), (3, 2), F64, F32, "expected m1 and m2 to have the same dtype, but got: double != float"),
    ((2, 3), (3, 2), F32, F64, "expected m1 and m2 to have the same dtype, but got: float != double"),
    ((2, 3), (3, 2), I64, F32, "expected m1 and m2 to have the same dtype, but got: long int != float"),
    ((1, 2, 3), (3, 2), I32, I64, "expected m1 and m2 to have the same dtype, but got: int != long int"),
    ((1, 2, 3), (1, 3, 2), F32, F64, "expected scalar type Float but found Double"),
    ((2, 3), (1, 3, 2), F64, F32, "expected scalar type Double but found Float"),
    ((3,), (1, 3, 2), I64, F32, "expected scalar type Long but found Float"),
]


@pytest.mark.parametrize("sa, sb, da, db, words", MATMUL)
def test_matmul_operator_method_and_linalg_refuse_two_dtypes(sa, sb, da, db, words):
    a, b = ones(sa, da), ones(sb, db)
    for product in (lambda: a @ b, lambda: a.matmul(b), lambda: mg.linalg.matmul(a, b)):
        with pytest.raises(RuntimeError) as caught:
            product()
        assert str(caught.value) == words
    assert mg.matmul(a, b).dtype in (da, db, F64)  # NumPy's function promotes


FIXED_RANKS = [
    ("mm", (2, 3), (3, 2), "expected m1 and m2 to have the same dtype, but got: double != float"),
    ("bmm", (1, 2, 3), (1, 3, 2), "expected scalar type Double but found Float"),
    ("mv", (2, 3), (3,), "addmv input tensors must have the same dtype, but got Float, Double, and Float"),
    ("dot", (3,), (3,), "dot : expected both vectors to have same dtype, but found Double and Float"),
    ("vdot", (3,), (3,), "dot : expected both vectors to have same dtype, but found Double and Float"),
    ("inner", (2, 3), (2, 3), "both inputs should have same dtype"),
]


@pytest.mark.parametrize("name, sa, sb, words", FIXED_RANKS, ids=[c[0] for c in FIXED_RANKS])
def test_fixed_rank_products_refuse_two_dtypes(name, sa, sb, words):
    a, b = ones(sa, F64), ones(sb, F32)
    with pytest.raises(RuntimeError, match="^" + words.replace("(", r"\(") + "$"):
        getattr(a, name)(b)
    if name in ("mm", "bmm", "mv"):  # PyTorch-only functions: refused the same
        with pytest.raises(RuntimeError, match="same dtype|scalar type"):
            getattr(mg, name)(a, b)


def test_what_promotes_in_pytorch_still_does():
    v32, v64 = ones((2,), F32), ones((2,), F64)
    assert v32.outer(v64).dtype == F64 and v32.ger(v64).dtype == F64
    assert mg.addr(ones((2, 2), F32), v32, v64).dtype == F64
    assert mg.tensor(2.0, dtype=F64).inner(ones((3,), F32)).dtype == F32  # a 0-d operand: a product
    assert mg.matmul(ones((2, 3), F32), ones((3, 2), F64)).dtype == F64  # NumPy's function
    assert mg.einsum("ij,jk->ik", ones((2, 3), F32), ones((3, 2), F64)).dtype == F64
    assert (ones((2, 3), F64) @ ones((3, 2), F64)).dtype == F64


SELF_MAT2 = "self and mat2 must have the same dtype, but got "
FUSED = [  # (name, shapes of input, a, b, dtypes, torch 2.13's words)
    ("addmm", ((2, 2), (2, 3), (3, 2)), (F32, F32, F64), SELF_MAT2 + "Float and Double"),
    ("addmm", ((2, 2), (2, 3), (3, 2)), (F32, F64, F32),
     "mat1 and mat2 must have the same dtype, but got Double and Float"),
    ("addmm", ((), (2, 3), (3, 2)), (F64, F32, F32), SELF_MAT2 + "Double and Float"),
    ("addmv", ((2,), (2, 3), (3,)), (I64, F32, F32),
     "addmv input tensors must have the same dtype, but got Long, Float, and Float"),
    ("baddbmm", ((1, 2, 2), (1, 2, 3), (1, 3, 2)), (F32, F64, F32),
     "Input dtypes must be the same, got: input float, batch1: double, batch2: float"),
    ("baddbmm", ((1, 2, 2), (1, 2, 3), (1, 3, 2)), (F32, F32, I64), "expected scalar type Float but found Long"),
    ("addbmm", ((2, 2), (1, 2, 3), (1, 3, 2)), (F64, F32, F32), SELF_MAT2 + "Double and Float"),
]


@pytest.mark.parametrize("name, shapes, dtypes, words", FUSED, ids=[c[0] for c in FUSED])
def test_fused_products_refuse_two_dtypes(name, shapes, dtypes, words):
    args = [ones(s, d) for s, d in zip(shapes, dtypes)]
    with pytest.raises(RuntimeError) as caught:
        getattr(mg, name)(*args)
    assert str(caught.value) == words


def test_in_place_fused_product_refuses_and_leaves_its_input():
    x = ones((2, 2), F32)
    with pytest.raises(RuntimeError, match="^mat1 and mat2 must have the same dtype, but got Double and Float$"):
        x.addmm_(ones((2, 3), F64), ones((3, 2), F32))
    assert x.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_multi_dot_and_chain_matmul_refuse_two_dtypes():
    words = "multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor 2 double"
    mats = [ones((2, 2), F32), ones((2, 2), F32), ones((2, 2), F64)]
    with pytest.raises(RuntimeError) as caught:
        mg.linalg.multi_dot(mats)
    assert str(caught.value) == words
    with warnings.catch_warnings(), pytest.raises(RuntimeError) as caught:
        warnings.simplefilter("ignore")  # (chain_matmul's deprecation)
        mg.chain_matmul(*mats)
    assert str(caught.value) == words


@pytest.mark.parametrize("device, low, high", [("cpu", F32, F64), ("strict", F32, F64), ("strict-f32", I64, F32)])
def test_refused_on_each_device_and_one_dtype_still_multiplies(device, low, high):
    a, b = ones((2, 3), low, device), ones((3, 2), high, device)
    with pytest.raises(RuntimeError, match="same dtype"):
        a @ b
    w = ones((3, 2), high, device).requires_grad_()
    (ones((2, 3), high, device) @ w).sum().backward()
    assert w.grad.dtype == high and w.grad.tolist() == [[2.0, 2.0]] * 3


def test_refused_under_transforms_and_checkpoint():
    w = ones((3, 2), F64)
    with pytest.raises(RuntimeError, match="same dtype"):
        mg.func.grad(lambda x: (x @ w).sum())(ones((2, 3), F32))
    with pytest.raises(RuntimeError, match="same dtype"):
        mg.func.vmap(lambda x: x @ w)(ones((4, 3), F32))
    with pytest.raises(RuntimeError, match="same dtype"):
        mg.checkpoint.checkpoint(lambda x: (x @ w).sum(), ones((2, 3), F32).requires_grad_())
    g = mg.func.grad(lambda x: (x @ w).sum())(ones((2, 3), F64))  # one dtype: the gradient as before
    assert g.tolist() == [[2.0, 2.0, 2.0]] * 2
