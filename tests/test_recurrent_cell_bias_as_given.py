"""An RNN cell keeps ``bias`` as given and prints it as PyTorch's cells do (repr pasted from torch 2.13).

NVIDIA/tacotron2 builds its decoder cell as ``nn.LSTMCell(in, hidden, 1)``: torch prints
``LSTMCell(40, 24, bias=1)``, the engine printed ``LSTMCell(40, 24)``."""

import minigrad_ckpt as mg


def test_the_repr_and_attribute_are_pytorchs():
    expected = [(1, "LSTMCell(3, 4, bias=1)"), (0, "LSTMCell(3, 4, bias=0)"), (True, "LSTMCell(3, 4)"),
                (False, "LSTMCell(3, 4, bias=False)"), (1.0, "LSTMCell(3, 4, bias=1.0)")]
    for bias, text in expected:
        cell = mg.nn.LSTMCell(3, 4, bias)
        assert repr(cell) == text and cell.bias is bias
        assert (cell.bias_ih is None) == (not bias)
    assert repr(mg.nn.GRUCell(3, 4, 1)) == "GRUCell(3, 4, bias=1)"
    assert repr(mg.nn.RNNCell(3, 4, 1)) == "RNNCell(3, 4, bias=1)"
