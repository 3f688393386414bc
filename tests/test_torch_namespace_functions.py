"""PyTorch's top-level names a script calls beside the math: ``torch.typename``,
``torch.set_warn_always``/``torch.is_warn_always_enabled``, the deprecated ``torch.nuclear_norm``
and ``torch.frobenius_norm`` (warning once a process, as ATen's), and the structured control flow
``torch.cond``/``torch.while_loop`` run eagerly.  Numbers and messages are torch 2.13's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import settings


def test_typename_is_pytorchs_with_the_packages_name():
    assert mg.typename(mg.zeros(2, dtype=mg.float64)) == "minigrad_ckpt.DoubleTensor"   # torch.DoubleTensor
    assert mg.typename(mg.zeros(2, dtype=mg.int64)) == "minigrad_ckpt.LongTensor"
    assert mg.typename(3) == "int" and mg.typename([1]) == "list"                         # torch's
    assert mg.typename(mg.nn.Linear(1, 1)) == "minigrad_ckpt.nn.linear.Linear"
    assert mg.typename(mg.nn.Linear) == "minigrad_ckpt.nn.linear.Linear"


@pytest.fixture
def fresh_once_warnings():
    saved = set(settings._warned_once)
    settings._warned_once.clear()
    yield
    settings._warned_once.clear()
    settings._warned_once.update(saved)
    mg.set_warn_always(False)


def test_deprecated_norms_warn_once_unless_warn_always(fresh_once_warnings):
    x = mg.arange(6.0, dtype=mg.float64).reshape(2, 3)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        mg.nuclear_norm(x)
        mg.nuclear_norm(x)
    assert len(seen) == 1 and seen[0].filename == __file__
    assert "at::nuclear_norm is deprecated" in str(seen[0].message)
    assert "linalg.matrix_norm(A, 'nuc', dim, keepdim)" in str(seen[0].message)
    assert mg.is_warn_always_enabled() is False
    mg.set_warn_always(True)
    assert mg.is_warn_always_enabled() is True
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        mg.frobenius_norm(x, 1)
        mg.frobenius_norm(x, 1)
    assert len(seen) == 2 and "linalg.vector_norm(A, 2., dim, keepdim)" in str(seen[0].message)
    with pytest.raises(RuntimeError, match="setWarnOnlyOnce expects a bool, but got int"):
        mg.set_warn_always(1)


@pytest.mark.filterwarnings("ignore:at::")
def test_nuclear_and_frobenius_norms_are_pytorchs():
    x = mg.arange(6.0, dtype=mg.float64).reshape(2, 3)
    assert mg.nuclear_norm(x).item() == pytest.approx(8.348469228349534, rel=1e-14)      # torch 2.13
    assert mg.nuclear_norm(x, keepdim=True).shape == (1, 1) and mg.nuclear_norm(x, True).shape == (1, 1)
    assert mg.nuclear_norm(mg.zeros(2, 2, 2), (0, 1)).shape == (2,)
    assert mg.frobenius_norm(x, (1,)).tolist() == pytest.approx([5 ** 0.5, 50 ** 0.5], rel=1e-15)
    assert mg.frobenius_norm(x, 1, True).shape == (2, 1)
    assert mg.frobenius_norm(x, (0, 1)).item() == pytest.approx(55 ** 0.5, rel=1e-15)
    assert mg.frobenius_norm(mg.ones(2, 3), ()).item() == pytest.approx(6 ** 0.5)       # (): every element
    y = mg.tensor([[3.0, 4.0], [1.0, 2.0]], dtype=mg.float64, requires_grad=True)
    mg.nuclear_norm(y).backward()
    assert np.allclose(y.grad.numpy(), [[0.8574929257125444, 0.5144957554275268],
                                        [-0.5144957554275267, 0.8574929257125443]], rtol=1e-14, atol=0)
    # without dim, the last two dims of a batch of matrices (torch 2.13's numbers)
    batch = mg.sin(mg.arange(12.0, dtype=mg.float64)).reshape(3, 2, 2)
    assert mg.nuclear_norm(batch).tolist() == pytest.approx(
        [1.7564466652445725, 1.8794374146113393, 1.993716522176325], rel=1e-13)
    assert mg.nuclear_norm(batch, True).shape == (3, 1, 1)
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: The input tensor A must have at least 2 dimensions."):
        mg.nuclear_norm(mg.zeros(3))
    with pytest.raises(RuntimeError, match="dim must be a 2-tuple. Got 0"):
        mg.nuclear_norm(x, (0,))
    with pytest.raises(RuntimeError, match="Expected at most 2 dimensions, but got 3 dimensions instead."):
        mg.frobenius_norm(x, (0, 1, 1))
    with pytest.raises(TypeError):
        mg.frobenius_norm(x)


def test_cond_calls_one_branch_with_the_operands():
    x = mg.arange(6.0, dtype=mg.float64).reshape(2, 3)
    assert mg.cond(mg.tensor(True), lambda a: a + 1, lambda a: a - 1, (x,)).tolist() == [[1, 2, 3], [4, 5, 6]]
    assert mg.cond(False, lambda a: a + 1, lambda a: a - 1, [x]).tolist() == [[-1, 0, 1], [2, 3, 4]]
    assert mg.cond(True, lambda: 7, lambda: 8) == 7
    w = mg.tensor(2.0, requires_grad=True)
    mg.cond(w > 0, lambda a: (a * w).sum(), lambda a: a.sum(), (x,)).backward()
    assert w.grad.item() == 15.0
    with pytest.raises(RuntimeError, match="Expected pred to be bool or single-element tensor, but got"):
        mg.cond(mg.tensor([True, False]), lambda a: a, lambda a: a, (x,))
    with pytest.raises(TypeError, match="operands must be a tuple or list"):
        mg.cond(True, lambda a: a, lambda a: a, x)


def test_while_loop_runs_eagerly_and_keeps_its_carried_values_kind():
    x = mg.arange(6.0, dtype=mg.float64).reshape(2, 3)
    i, total = mg.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s * 2), (mg.tensor(0), x))
    assert i.item() == 5 and total.tolist() == [[0, 32, 64], [96, 128, 160]]                  # torch 2.13
    # a body of one bare value: the result is that value, bare, as torch 2.13's (tensor(5), not (tensor(5),))
    bare = mg.while_loop(lambda i: i < 5, lambda i: i + 1, (mg.tensor(0),))
    assert isinstance(bare, mg.Tensor) and bare.item() == 5
    assert mg.while_loop(lambda i: i < 5, lambda i: (i + 1,), (mg.tensor(0),))[0].item() == 5
    s = mg.tensor(1.5, requires_grad=True)
    _, v = mg.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * s), (mg.tensor(0), mg.tensor(1.0)))
    v.backward()
    assert v.item() == 3.375 and s.grad.item() == 6.75                      # d(s^3)/ds = 3 s^2
    with pytest.raises(RuntimeError, match=r"pair\[0\] differ in 'dtype: float32 vs int64'"):
        mg.while_loop(lambda i: i < 5, lambda i: (i + 1.0,), (mg.tensor(0),))


def test_top_level_gcd_and_lcm_in_place():
    a = mg.tensor([4, 6])
    assert mg.gcd_(a, mg.tensor([6, 4])) is a and a.tolist() == [2, 2]                       # torch 2.13
    assert mg.lcm_(mg.tensor([4, 6]), mg.tensor([6, 4])).tolist() == [12, 12]


def test_deterministic_debug_mode_is_the_determinism_switches_by_number():
    try:
        assert mg.get_deterministic_debug_mode() == 0
        mg.set_deterministic_debug_mode("warn")
        assert mg.get_deterministic_debug_mode() == 1
        assert mg.are_deterministic_algorithms_enabled() and mg.is_deterministic_algorithms_warn_only_enabled()
        mg.set_deterministic_debug_mode(2)
        assert mg.are_deterministic_algorithms_enabled() and not mg.is_deterministic_algorithms_warn_only_enabled()
        mg.use_deterministic_algorithms(True, warn_only=True)
        assert mg.get_deterministic_debug_mode() == 1
        with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`, but got x"):
            mg.set_deterministic_debug_mode("x")
        with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 3"):
            mg.set_deterministic_debug_mode(3)
        with pytest.raises(TypeError, match="debug_mode must be str or int"):
            mg.set_deterministic_debug_mode(1.0)
        mg.set_deterministic_debug_mode(True)  # a bool is an int to torch 2.13: True is 1, "warn"
        assert mg.get_deterministic_debug_mode() == 1
        mg.set_deterministic_debug_mode(False)
        assert mg.get_deterministic_debug_mode() == 0
    finally:
        mg.set_deterministic_debug_mode("default")


def test_to_dlpack_at_the_top_level():
    assert mg.from_dlpack(mg.to_dlpack(mg.arange(3.0))).tolist() == [0.0, 1.0, 2.0]
