"""The float16 special-function calls ``make_torch_float16_special.py`` records and
``tests/test_float16_special.py`` replays: ``name -> (call(namespace, *tensors), args, wrt)``,
``call`` written once for torch and the engine (the same names), ``wrt`` the argument whose
gradient is compared (``None``: the value only; no derivative in ``a``)."""

from __future__ import annotations

# arguments where float16 arithmetic overflows (65504), underflows or cancels inside the
# function while the value itself is an ordinary float16
X = [-10.0, -3.0, -2.5, -0.5, 0.5, 1.0, 2.0, 2.5, 3.0, 10.0, 12.0, 20.0, 100.0]
POS = [0.1, 0.5, 1.0, 2.0, 2.5, 3.0, 4.5, 10.0, 12.0, 20.0]
P = [-0.999, -0.9, -0.5, 0.0, 0.3, 0.9, 0.999]
# gammainc(a, x): the series (x < a + 1), the continued fraction, Temme's expansion (a >= 20 is
# beyond float16's reach of these; 10 and 20 still overflow the fraction's terms)
A_X = [[1.0, 1.0, 2.0, 0.5, 3.0, 10.0, 4.0], [2.0, 3.0, 2.0, 1.0, 0.1, 20.0, 4.5]]

CASES = {
    "erf": (lambda m, x: m.erf(x), [X], 0),
    "erfc": (lambda m, x: m.erfc(x), [X], 0),
    "erfinv": (lambda m, x: m.erfinv(x), [P], 0),
    "lgamma": (lambda m, x: m.lgamma(x), [X], 0),
    "digamma": (lambda m, x: m.digamma(x), [POS], 0),
    "polygamma2": (lambda m, x: m.polygamma(2, x), [POS], 0),
    "i0e": (lambda m, x: m.special.i0e(x), [X], None),
    "i1e": (lambda m, x: m.special.i1e(x), [X], None),
    "i0": (lambda m, x: m.special.i0(x), [[-10.0, -3.0, 0.5, 2.0, 3.0, 10.0]], 0),
    "i1": (lambda m, x: m.special.i1(x), [[-10.0, -3.0, 0.5, 2.0, 3.0, 10.0]], 0),
    "gammainc": (lambda m, a, x: m.special.gammainc(a, x), A_X, None),
    "gammaincc": (lambda m, a, x: m.special.gammaincc(a, x), A_X, None),
    "gelu": (lambda m, x: m.nn.functional.gelu(x), [X], 0),
    "sinc": (lambda m, x: m.sinc(x), [[-2.0, -1.0, -0.5, 0.25, 1.0, 2.0, 3.0, 100.0]], 0),
}

# compositions PyTorch computes in one half kernel (float32 inside): an intermediate overflows
# or rounds in float16 step by step.  name -> (call(namespace, *tensors), args, wrt)
BIG = [[65504.0, 65504.0, 1.0, 300.0], [-65504.0, 65504.0, -65504.0, 2.0]]
COMPOSITIONS = {
    "lerp": (lambda m, a, b: m.lerp(a, b, 0.5), [[65504.0, 65504.0, -65504.0, 1.0, 0.0],
                                               [-65504.0, -300.0, 65504.0, 2.0, 6e-8]], 0),
    "addcmul": (lambda m, x, a, b: m.addcmul(x, a, b), [[-65504.0, 65504.0, -1.0, 1.0], [300.0, 300.0, 2.0, 3.0],
                                                       [301.0, -301.0, 3.0, 0.5]], 0),
    "addcdiv": (lambda m, x, a, b: m.addcdiv(x, a, b, value=2.0),
                [[-1.0, -1.0, 2.0, 65504.0], [300.0, -300.0, 2.0, 65504.0], [301.0, -301.0, 3.0, 65504.0]], 0),
    "renorm": (lambda m, x: m.renorm(x, 2, 0, 1.0), [BIG], 0),
    "trapezoid": (lambda m, x: m.trapezoid(x, dim=-1),
                  [[[65504.0, 65504.0, -65504.0, -65504.0], [1.0, 2.0, 3.0, 300.0]]], 0),
    "bce_with_logits": (lambda m, x, y: m.nn.functional.binary_cross_entropy_with_logits(x, y, reduction="none"),
                        [[-3.0, -1.0, -0.5, 0.5, 1.0, 3.0, 20.0], [0.3, 0.3, 0.7, 0.3, 0.7, 0.9, 0.99]], 0),
    "round_decimals": (lambda m, x: m.round(x, decimals=2), [[[65504.0, -65504.0, 1.2345, 300.126]]], None),
}
