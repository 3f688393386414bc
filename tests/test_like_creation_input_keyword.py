"""The ``*_like`` creation functions take their tensor as ``input=``, PyTorch's keyword.

Found porting mrdbourke's "PyTorch fundamentals" notebook: ``torch.zeros_like(input=zero_to_ten)``
was a TypeError here (the parameter was named ``x``), for all seven ``*_like`` functions."""
import pytest

import minigrad_ckpt as mg


@pytest.mark.parametrize("name, args", [
    ("zeros_like", ()), ("ones_like", ()), ("empty_like", ()), ("full_like", (2,)),
    ("rand_like", ()), ("randn_like", ()), ("randint_like", (5,)),
])
def test_input_keyword(name, args):
    x = mg.arange(10.0).reshape(2, 5)
    fn = getattr(mg, name)
    by_keyword = fn(input=x, **_named(name, args))
    assert by_keyword.shape == (2, 5) and by_keyword.dtype == mg.float32
    assert fn(x, *args).shape == by_keyword.shape


def _named(name, args):
    # (randint_like's bound by keyword is high=, as PyTorch's: its low= alone is PyTorch's TypeError)
    return {"full_like": {"fill_value": 2}, "randint_like": {"high": 5}}.get(name, {})


def test_high_alone_by_keyword_draws_from_zero():
    """``torch.randint_like(input=x, high=3)`` and ``torch.randint(high=3, size=(n,))``: PyTorch's keyword
    spelling of the one-bound form, ``[0, high)``; a missing ``low`` was a TypeError here."""
    mg.manual_seed(0)
    x = mg.zeros(200)
    for drawn in (mg.randint_like(input=x, high=3), mg.randint_like(x, high=3), mg.randint(high=3, size=(200,))):
        assert drawn.shape == (200,) and set(drawn.tolist()) == {0, 1, 2}
    assert set(mg.randint_like(x, low=1, high=3).tolist()) == {1, 2}
    with pytest.raises(TypeError, match="high"):
        mg.randint(size=(2,))


def test_the_notebooks_spelling():
    zero_to_ten = mg.arange(start=0, end=10, step=1)
    ten_zeros = mg.zeros_like(input=zero_to_ten)
    assert ten_zeros.tolist() == [0] * 10 and ten_zeros.dtype == mg.int64
    assert mg.full_like(input=zero_to_ten, fill_value=7).tolist() == [7] * 10
