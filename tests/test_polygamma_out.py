"""``mg.polygamma(n, x, out=...)`` and ``mg.special.polygamma(n, x, out=...)`` write into ``out``, as
``torch.polygamma`` and ``torch.special.polygamma`` do (both were a TypeError: "unexpected keyword
argument 'out'", missed when ``out=`` was given to the functions of PyTorch's operator database,
whose polygamma entries call it through lambdas).  Found by the unary-ufunc sweep against torch 2.13."""
import math

import pytest

import minigrad_ckpt as mg

EULER = 0.5772156649015329


@pytest.mark.parametrize("fn", [mg.polygamma, mg.special.polygamma])
def test_polygamma_writes_into_out_and_returns_it(fn):
    x = mg.tensor([1.0, 2.0], dtype=mg.float64)
    out = mg.empty(2, dtype=mg.float64)
    assert fn(0, x, out=out) is out
    assert out.tolist() == pytest.approx([-EULER, 1 - EULER], rel=1e-14)
    assert fn(1, x, out=out) is out
    assert out.tolist() == pytest.approx([math.pi ** 2 / 6, math.pi ** 2 / 6 - 1], rel=1e-14)


@pytest.mark.parametrize("fn", [mg.polygamma, mg.special.polygamma])
def test_polygamma_out_casts_as_pytorch(fn):
    x = mg.tensor([1.0, 2.0])  # float32: any floating or complex out takes it, an integer one does not
    for dtype in (mg.float64, mg.float16, mg.complex64):
        out = mg.empty(2, dtype=dtype)
        fn(1, x, out=out)
        assert out.dtype == dtype and abs(complex(out[0].item()) - math.pi ** 2 / 6) < 2e-3
    with pytest.raises(RuntimeError, match="can't be cast"):
        fn(1, x, out=mg.empty(2, dtype=mg.int64))
    i = mg.tensor([1, 2])  # integers compute in the default float dtype
    out = mg.empty(0, dtype=mg.float64)
    fn(0, i, out=out)
    assert out.shape == (2,) and out[0].item() == pytest.approx(-EULER, rel=1e-6)
