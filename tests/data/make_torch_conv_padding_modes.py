"""Make tests/data/torch_conv_padding_modes.npz: Conv1d/Conv2d with each padding_mode, by PyTorch.

Run offline (torch is never a test dependency):  python tests/data/make_torch_conv_padding_modes.py
For each case: the input, weight and bias, the layer's output, and the gradients of
sum(output * upstream) with respect to the input, weight and bias.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

CASES = [  # (name, dims, kernel, padding, dilation, stride)
    ("2d_p1", 2, (3, 3), (1, 1), (1, 1), (1, 1)),
    ("2d_p12", 2, (3, 2), (1, 2), (1, 1), (2, 1)),
    ("2d_same_even", 2, (2, 3), "same", (1, 1), (1, 1)),
    ("2d_same_dil", 2, (3, 2), "same", (2, 1), (1, 1)),
    ("1d_p2", 1, (3,), (2,), (1,), (1,)),
    ("1d_same_even", 1, (4,), "same", (1,), (1,)),
]


def main() -> None:
    rng = np.random.default_rng(0)
    out = {}
    for mode in ("reflect", "replicate", "circular"):
        for name, dims, kernel, padding, dilation, stride in CASES:
            shape = (2, 3, 5, 6)[: 2 + dims]
            x = rng.standard_normal(shape)
            cls = torch.nn.Conv2d if dims == 2 else torch.nn.Conv1d
            pad = padding if padding == "same" else (padding if dims == 2 else padding[0])
            layer = cls(3, 2, kernel, stride=stride if dims == 2 else stride[0], padding=pad,
                        dilation=dilation if dims == 2 else dilation[0], padding_mode=mode).double()
            xt = torch.tensor(x, requires_grad=True)
            y = layer(xt)
            up = rng.standard_normal(tuple(y.shape))
            (y * torch.tensor(up)).sum().backward()
            key = f"{mode}_{name}"
            out[f"{key}.x"] = x
            out[f"{key}.w"] = layer.weight.detach().numpy()
            out[f"{key}.b"] = layer.bias.detach().numpy()
            out[f"{key}.y"] = y.detach().numpy()
            out[f"{key}.up"] = up
            out[f"{key}.gx"] = xt.grad.numpy()
            out[f"{key}.gw"] = layer.weight.grad.numpy()
            out[f"{key}.gb"] = layer.bias.grad.numpy()
    np.savez_compressed(Path(__file__).with_name("torch_conv_padding_modes.npz"), **out)


if __name__ == "__main__":
    main()
