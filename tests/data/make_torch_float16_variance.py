"""Regenerate ``tests/data/torch_float16_variance.npz``: torch 2.13's float16 ``var``, ``std``, ``var_mean``
and ``std_mean`` of values of magnitude ~100 (their squares overflow float16; PyTorch's half
accumulates in float32 and rounds the result), with the gradient of ``sum(var) + sum(std)``; and the
float32 variance of one 2e19 among 9999 zeros (4e34: the square of the power-of-two scale near 2e19,
2^128, overflows float32 where the variance does not).

    python tests/data/make_torch_float16_variance.py     # needs torch; the tests do not

Read by ``tests/test_float16_variance.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

OUT = Path(__file__).with_name("torch_float16_variance.npz")
RNG = np.random.default_rng(0)
X = (RNG.standard_normal((4, 3000)) * 100).astype(np.float16)
SPIKE = np.zeros(10000, dtype=np.float32)
SPIKE[7] = 2e19


def main() -> None:
    x = torch.tensor(X, requires_grad=True)
    v, s = x.var(1), x.std(1)
    (v.sum() + s.sum()).backward()
    vm = torch.var_mean(x.detach(), dim=1, correction=0)
    sm = torch.std_mean(x.detach(), dim=1)
    spike = torch.tensor(SPIKE, requires_grad=True)
    sv = spike.var()
    sv.backward()
    np.savez_compressed(OUT, x=X, var=v.detach().numpy(), std=s.detach().numpy(), grad=x.grad.numpy(),
                        var_mean_var=vm[0].numpy(), var_mean_mean=vm[1].numpy(), std_mean_std=sm[0].numpy(),
                        spike=SPIKE, spike_var=sv.detach().numpy(), spike_std=spike.detach().std().numpy(),
                        spike_grad=spike.grad.numpy())


if __name__ == "__main__":
    main()
