"""Regenerate ``tests/data/torch_integer_math.json``: PyTorch's answers for ``gcd``, ``lcm``,
``bitwise_left_shift``/``bitwise_right_shift`` (``<<``, ``>>``, a Python int on either side) and
``frexp`` (its mantissa's gradient too), on negatives, zeros, shifts past the width or negative,
and float edge values.

    python tests/data/make_torch_integer_math.py        # needs torch; the tests do not

``tests/test_integer_math.py`` replays them.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

OUT = Path(__file__).with_name("torch_integer_math.json")
A = [0, -4, 6, -9, 0, 12, 7, -2 ** 31]
B = [0, 6, -4, -6, 5, 0, -7, 0]
SHIFTED = [1, -8, 3, 0, -1, 100, 2 ** 30, -(2 ** 31)]
BY = [0, 1, 5, 31, 32, 40, -1, 3]
INT8 = [-128, -3, 0, 5, 127, 64]
FLOATS = [0.0, -0.0, 1.0, -3.5, 1e-3, 8.0, 3.4028234663852886e38, 1e-40, 1.401298464324817e-45,
          float("inf"), float("-inf"), float("nan")]


def dump(t: torch.Tensor) -> dict:
    return {"dtype": str(t.dtype).removeprefix("torch."), "values": t.tolist()}


def integer_cases() -> dict:
    a, b = torch.tensor(A, dtype=torch.int32), torch.tensor(B, dtype=torch.int32)
    x, s = torch.tensor(SHIFTED, dtype=torch.int32), torch.tensor(BY, dtype=torch.int32)
    i8 = torch.tensor(INT8, dtype=torch.int8)
    u8 = torch.tensor([1, 5, 200, 255], dtype=torch.uint8)
    return {
        "gcd": dump(torch.gcd(a, b)), "lcm": dump(torch.lcm(a, b)),
        "gcd_broadcast": dump(torch.gcd(a.reshape(2, 4), torch.tensor([[6], [4]], dtype=torch.int32))),
        "gcd_promoted": dump(torch.gcd(u8, torch.tensor([6, -9, 4, 3], dtype=torch.int8))),
        "lcm_wraps": dump(torch.lcm(torch.tensor([2 ** 40]), torch.tensor([3 ** 20]))),
        "left": dump(x << s), "right": dump(x >> s),
        "left_int": dump(x << 3), "right_int": dump(x >> 33),
        "int_left": dump(3 << s), "int_right": dump(-1024 >> s),
        "int8_left": dump(i8 << 1), "int8_right": dump(i8 >> 9),
        "uint8_left_wrapped": dump(u8 << 257), "uint8_right": dump(u8 >> 3),
        "uint8_left_int32": dump(u8 << torch.tensor([1, 2, 3, 4], dtype=torch.int32)),
        "bool_left": dump(torch.tensor([True, False]) << 2),
    }


def frexp_cases() -> dict:
    out = {}
    for dtype in (torch.float16, torch.float32, torch.float64):
        x = torch.tensor(FLOATS, dtype=torch.float64).to(dtype)
        m, e = torch.frexp(x)
        finite = torch.tensor([1.0, -3.5, 1e-3, 8.0, 0.75], dtype=dtype, requires_grad=True)
        (grad,) = torch.autograd.grad(torch.frexp(finite).mantissa.sum(), finite)
        out[str(dtype).removeprefix("torch.")] = {
            "input": [float(v) for v in x.tolist()], "mantissa": dump(m), "exponent": dump(e),
            "grad_input": [float(v) for v in finite.tolist()], "grad": grad.tolist()}
    return out


def main() -> None:
    data = {"A": A, "B": B, "SHIFTED": SHIFTED, "BY": BY, "INT8": INT8, "torch": torch.__version__,
            "integer": integer_cases(), "frexp": frexp_cases()}
    OUT.write_text(json.dumps(data, indent=1, allow_nan=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
