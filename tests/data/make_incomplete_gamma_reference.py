"""Regenerate ``tests/data/incomplete_gamma_reference.json``: ``P(a, x)``, ``Q(a, x)`` and the
density ``x^(a-1) e^-x / Gamma(a)`` to 50 digits (mpmath), for large ``a`` where neither SciPy
nor PyTorch is a reference (both lose up to 70% of ``P`` at ``a = 1e9``, ``x = a - 5 sqrt(a)``),
for ``tests/test_incomplete_gamma_large_a.py``.

    python tests/data/make_incomplete_gamma_reference.py     # needs mpmath; the tests do not

``x`` is rounded to float64 first and the reference is of that float.  ``P`` comes from its
series (all terms positive) while ``x <= a``, else from mpmath's upper gamma; the other as
``1 -`` it, at 60 digits.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath

OUT = Path(__file__).with_name("incomplete_gamma_reference.json")
A = [20.0, 21.5, 50.0, 200.0, 1000.0, 5000.0, 1e5, 1e6, 1e8]
Z = [-6.0, -2.0, -0.5, 0.0, 0.3, 2.0, 6.0]  # x = a + z sqrt(a): where the mass is
S = [-0.999, -0.9, -0.5, 0.7, 1.5]  # x = a (1 + s): the tails


def lower_upper(a: float, x: float) -> tuple[float, float, float]:
    with mpmath.workdps(60):
        a_, x_ = mpmath.mpf(a), mpmath.mpf(x)
        log_factor = a_ * mpmath.log(x_) - x_ - mpmath.loggamma(a_)
        if x_ <= a_:
            term = total = mpmath.mpf(1)
            n = 1
            while term > total * mpmath.mpf(10) ** -55:
                term *= x_ / (a_ + n)
                total += term
                n += 1
            p = total * mpmath.exp(log_factor) / a_
            q = 1 - p
        else:
            q = mpmath.gammainc(a_, x_, mpmath.inf, regularized=True)
            p = 1 - q
        return float(p), float(q), float(mpmath.exp(log_factor) / x_)


def main() -> None:
    cases = []
    for a in A:
        xs = [a + z * math.sqrt(a) for z in Z] + [a * (1 + s) for s in S]
        for x in xs:
            if x <= 0 or (a >= 1e8 and x < a * 0.9):  # (the series would take 1e8 terms)
                continue
            p, q, density = lower_upper(a, float(x))
            cases.append([a, float(x), p, q, density])
    rows = ",\n".join(json.dumps(case) for case in cases)  # one case a line: [a, x, P, Q, density]
    OUT.write_text('{"cases": [\n' + rows + "\n]}\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
