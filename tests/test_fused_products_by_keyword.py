"""``addmm``, ``addmv``, ``addr``, ``baddbmm`` and ``addbmm`` take their operands by PyTorch's names
too -- ``mat1``/``mat2``, ``mat``/``vec``, ``vec1``/``vec2``, ``batch1``/``batch2`` -- as functions,
methods and in place; before, only by position (``addmv(input=c, mat=m, vec=v)``, test_torch's
test_blas_alpha_beta_empty, was a TypeError).  Python's TypeErrors for a name repeated, unknown or
missing.  Values by hand: the operands hold ones, so each product is a count.
"""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg

CASES = [  # name, PyTorch's names, input shape, operand shapes, the product's value
    ("addmm", ("mat1", "mat2"), (2, 3), ((2, 4), (4, 3)), 4.0),
    ("addmv", ("mat", "vec"), (2,), ((2, 4), (4,)), 4.0),
    ("addr", ("vec1", "vec2"), (2, 3), ((2,), (3,)), 1.0),
    ("baddbmm", ("batch1", "batch2"), (2, 2, 3), ((2, 2, 5), (2, 5, 3)), 5.0),
    ("addbmm", ("batch1", "batch2"), (2, 3), ((2, 2, 5), (2, 5, 3)), 10.0),
]


@pytest.mark.parametrize("name, names, shape, shapes, product", CASES, ids=[c[0] for c in CASES])
def test_operands_by_pytorchs_names(name, names, shape, shapes, product):
    c, a, b = mg.full(shape, 11.0), mg.ones(shapes[0]), mg.ones(shapes[1])
    want = mg.full(shape, 3 * 11.0 + 6 * product)
    fn = getattr(mg, name)
    assert mg.equal(fn(input=c, **{names[0]: a, names[1]: b}, beta=3, alpha=6), want).all()
    assert mg.equal(fn(c, a, **{names[1]: b}, beta=3, alpha=6), want).all()
    out = mg.zeros(shape)
    assert fn(c, **{names[0]: a, names[1]: b}, beta=3, alpha=6, out=out) is out and mg.equal(out, want).all()
    assert mg.equal(getattr(c, name)(**{names[0]: a, names[1]: b}, beta=3, alpha=6), want).all()
    d = c.clone()
    getattr(d, name + "_")(a, **{names[1]: b}, beta=3, alpha=6)
    assert mg.equal(d, want).all()
    assert [p for p in __import__("inspect").signature(fn).parameters][:3] == ["input", *names]


def test_pythons_type_errors_for_a_name_repeated_unknown_or_missing():
    c, a, b = mg.ones(2, 3), mg.ones(2, 4), mg.ones(4, 3)
    with pytest.raises(TypeError, match="^addmm\\(\\) got multiple values for argument 'mat1'$"):
        mg.addmm(c, a, mat1=b)
    with pytest.raises(TypeError, match="^addmm\\(\\) got an unexpected keyword argument 'vec'$"):
        mg.addmm(c, a, vec=b)
    with pytest.raises(TypeError, match="^addmm\\(\\) missing required argument: 'mat2'$"):
        mg.addmm(c, a)
    with pytest.raises(TypeError, match="^addmm\\(\\) takes 3 positional arguments but 4 were given$"):
        mg.addmm(c, a, b, b)
