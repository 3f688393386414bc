"""``mg.autograd.functional``'s ``v`` (vjp, jvp, hvp, vhp) is checked as PyTorch's ``_as_tuple(v,
"v", ...)`` and ``_validate_v`` check it, with their words (torch 2.13's on the same calls, below).

Before: a single Tensor ``v`` for a function of several inputs was read as a tuple of its rows
(``jvp(f, (a, b), stack([va, vb]))`` returned a result where PyTorch refuses), a list or a number
was taken, and a wrong size was the transforms' message ("vjp_fn: cotangents 0 has shape ...").
"""

from __future__ import annotations

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" stand-in device)

AF = mg.autograd.functional


def _x(device="cpu"):
    return mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, device=device)


def _cube_sum(a, b=None):
    return (a ** 3).sum() if b is None else (a * b * b).sum()


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_a_single_tensor_is_one_vector_not_a_stack_of_several(device):
    x, stacked = _x(device), mg.ones(2, 3, dtype=mg.float64, device=device)
    for call in (lambda: AF.jvp(lambda a, b: a * b, (x, x), stacked),
                 lambda: AF.hvp(_cube_sum, (x, x), stacked),
                 lambda: AF.vhp(_cube_sum, (x, x), stacked)):
        with pytest.raises(RuntimeError, match=r"^v is a tuple of invalid length: should be 2 but got 1\.$"):
            call()
    with pytest.raises(RuntimeError, match=r"^The given v should contain a single Tensor\.$"):
        AF.vjp(lambda a: a * 2, x, (x, x))
    with pytest.raises(RuntimeError, match=r"^v is a tuple of invalid length: should be 2 but got 1\.$"):
        AF.vjp(lambda a: (a * 2, a * 3), x, x)


@pytest.mark.parametrize("what", ["vjp", "jvp", "hvp", "vhp"])
def test_a_wrong_size_is_pytorchs_words(what):
    fn = (lambda a: a * 2) if what in ("vjp", "jvp") else _cube_sum
    with pytest.raises(RuntimeError, match=r"^v has invalid size: should be \(3,\) but got \(1, 3\)\.$"):
        getattr(AF, what)(fn, _x(), mg.ones(1, 3, dtype=mg.float64))
    two = (lambda a, b: a * b) if what in ("vjp", "jvp") else _cube_sum
    v = (mg.ones(3, dtype=mg.float64), mg.ones(2, dtype=mg.float64))
    if what == "vjp":
        two = lambda a, b: (a * b, a + b)  # noqa: E731  (two outputs: v is checked against them)
    with pytest.raises(RuntimeError, match=r"^Entry 1 in v has invalid size: should be \(3,\) but got \(2,\)\.$"):
        getattr(AF, what)(two, (_x(), _x()), v)


@pytest.mark.parametrize("what", ["vjp", "jvp", "hvp", "vhp"])
def test_a_list_or_a_number_is_pytorchs_type_error(what):
    fn = (lambda a: (a ** 2).sum()) if what == "vjp" else (lambda a: a * 2) if what == "jvp" else _cube_sum
    x = mg.tensor([2.0], dtype=mg.float64)
    for v, kind in (([mg.ones(1, dtype=mg.float64)], "list"), (1.0, "float")):
        with pytest.raises(TypeError, match=rf"^The v given to {what} must be either a Tensor or a tuple of Tensors "
                                            rf"but the given v has type <class '{kind}'>\.$"):
            getattr(AF, what)(fn, x, v)
    with pytest.raises(TypeError, match=rf"^The v given to {what} must be either a Tensor or a tuple of Tensors but "
                                        rf"the value at index 0 has type <class 'float'>\.$"):
        getattr(AF, what)(fn, x, (1.0,))


def test_right_vs_still_work():
    x = _x()
    out, g = AF.vjp(lambda a, b: (a * b, a + b), (x, x), (mg.ones(3, dtype=mg.float64), mg.ones(3, dtype=mg.float64)))
    assert g[0].tolist() == [1.5, 0.0, 3.0]
    assert AF.jvp(lambda a, b: a * b, (x, x), (x, x))[1].tolist() == [0.5, 2.0, 8.0]
    assert AF.hvp(_cube_sum, x, mg.ones(3, dtype=mg.float64))[1].tolist() == [3.0, -6.0, 12.0]
