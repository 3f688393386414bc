"""PyTorch's top-level one-step recurrent cells: ``torch.lstm_cell``, ``torch.gru_cell``,
``torch.rnn_tanh_cell``, ``torch.rnn_relu_cell``.

They are what ``nn.LSTMCell`` and its siblings compute, with the weights passed in
(``torch.gru_cell(x, h, w_ih, w_hh, b_ih, b_hh)``), as hand-written recurrent loops and
functionalized graphs call them.  The step is the layers' own (``recurrent._cell_step``: the same
fused LSTM and GRU ops, gates ``i, f, g, o`` and ``r, z, n`` in PyTorch's order), so values and
gradients are the cells'.  The input is a batch ``(N, input_size)``, as ATen's, which (unlike
``nn.GRUCell``) takes no unbatched input; a mismatched input size is ATen's ``RuntimeError``.
"""

from __future__ import annotations

from typing import Any

from ..functional.errors import InputMismatch
from ..tensor import Tensor
from . import functional as F
from .recurrent import _cell_step

__all__ = ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _projected(name: str, input: Tensor, w_ih: Tensor, b_ih: Any) -> Tensor:  # noqa: A002
    """``input W_ih^T + b_ih``, the gates side by side, after ATen's check of the input's size."""
    if input.ndim != 2:
        raise IndexError(f"{name}: Dimension out of range (expected a batched input (N, input_size), got shape "
                         f"{tuple(input.shape)})")
    if input.shape[1] != w_ih.shape[1]:
        raise InputMismatch(f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}")
    return F.linear(input, w_ih, b_ih)


def lstm_cell(input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Any = None,  # noqa: A002
              b_hh: Any = None) -> tuple[Tensor, Tensor]:
    """One LSTM step: ``hx`` is the pair ``(h, c)``; returns ``(h', c')``."""
    if not isinstance(hx, (tuple, list)):
        raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not "
                        f"{type(hx).__name__}")
    if len(hx) != 2:
        raise InputMismatch("lstm_cell expects two hidden states")
    h, c = _cell_step("LSTM", _projected("lstm_cell", input, w_ih, b_ih), hx[0], hx[1], w_hh, b_hh)
    return h, c


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Any = None,  # noqa: A002
             b_hh: Any = None) -> Tensor:
    """One GRU step: ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``."""
    return _cell_step("GRU", _projected("gru_cell", input, w_ih, b_ih), hx, None, w_hh, b_hh)[0]


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Any = None,  # noqa: A002
                  b_hh: Any = None) -> Tensor:
    """One Elman step: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    return _cell_step("RNN_TANH", _projected("rnn_tanh_cell", input, w_ih, b_ih), hx, None, w_hh, b_hh)[0]


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Any = None,  # noqa: A002
                  b_hh: Any = None) -> Tensor:
    """One Elman step with ReLU: ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    return _cell_step("RNN_RELU", _projected("rnn_relu_cell", input, w_ih, b_ih), hx, None, w_hh, b_hh)[0]
