"""Record the exception type PyTorch raises when a float32 layer gets float64 or int64 input.

Run: python tests/data/make_layer_dtype_errors.py  (needs torch; writes layer_dtype_errors.json).
tests/test_layer_dtype_error_types.py checks the engine's refusal is an instance of that type.
"""

import builtins
import json
import pathlib

import torch
from torch import nn

# name: (constructor arguments, input shape); the test builds the engine's layer from the same spec.
SPECS = {
    "Linear": ([4, 3], [2, 4]), "Conv1d": ([2, 3, 3], [1, 2, 5]), "Conv2d": ([2, 3, 3], [1, 2, 5, 5]),
    "Conv3d": ([2, 3, 2], [1, 2, 3, 3, 3]), "ConvTranspose2d": ([2, 3, 3], [1, 2, 4, 4]),
    "LayerNorm": ([4], [2, 4]), "BatchNorm1d": ([4], [3, 4]), "GroupNorm": ([2, 4], [3, 4, 2]),
    "RMSNorm": ([4], [2, 4]), "PReLU": ([], [2, 4]), "MultiheadAttention": ([4, 2], [3, 2, 4]),
    "TransformerEncoderLayer": ([4, 2, 8, 0.0], [3, 2, 4]), "RNN": ([4, 3], [5, 2, 4]),
    "LSTM": ([4, 3, 2], [5, 2, 4]), "GRU": ([4, 3, 1, True, False, 0.0, True], [5, 2, 4]),
    "RNNCell": ([4, 3], [2, 4]), "LSTMCell": ([4, 3], [2, 4]), "GRUCell": ([4, 3], [2, 4]),
}


def _raised(name: str, dtype: torch.dtype) -> str | None:
    args, shape = SPECS[name]
    torch.manual_seed(0)
    layer = getattr(nn, name)(*args)
    x = torch.ones(shape, dtype=dtype)
    try:
        layer(x, x, x) if name == "MultiheadAttention" else layer(x)
    except Exception as e:  # noqa: BLE001 -- recording whatever torch raises is the point
        for cls in type(e).__mro__:  # the nearest builtin class (torch's own subclass it)
            if getattr(builtins, cls.__name__, None) is cls:
                return cls.__name__
    return None


def main() -> None:
    raised = {name: {d: _raised(name, getattr(torch, d)) for d in ("float64", "int64")} for name in SPECS}
    out = {"torch_version": torch.__version__, "specs": SPECS, "raised": raised}
    path = pathlib.Path(__file__).with_name("layer_dtype_errors.json")
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
