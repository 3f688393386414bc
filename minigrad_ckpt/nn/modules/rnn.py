"""PyTorch's ``torch.nn.modules.rnn``: its layers at PyTorch's address.
The classes are :mod:`minigrad_ckpt.nn`'s; this module only names them."""

from ..recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
