"""``mg.onnx``: the ``torch.onnx`` spellings a ported program carries.

PyTorch's word_language_model and fast_neural_style examples write ``import torch.onnx`` at the top
of their main files and export only when asked (``--onnx-export``); model code asks
``torch.onnx.is_in_onnx_export()``. Ported by renaming the import, the program stopped at that line
(``No module named 'minigrad_ckpt.onnx'``) and could not train. Found porting those examples.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import minigrad_ckpt as torch  # the rename a ported program makes
import minigrad_ckpt.onnx  # noqa: F401  (the line ``import torch.onnx`` becomes)
from minigrad_ckpt import nn


class Scaled(nn.Module):
    """Model code that takes another path while an ONNX export traces it."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        if torch.onnx.is_in_onnx_export():
            return self.fc(x) * 0.0
        return self.fc(x) * 2.0


def test_import_line_of_a_ported_program_works():
    module = importlib.import_module("minigrad_ckpt.onnx")
    assert module is torch.onnx


def test_not_in_an_export_so_the_eager_path_runs():
    model = Scaled()
    x = torch.arange(6.0).reshape(2, 3)
    expected = 2.0 * (x.numpy() @ model.fc.weight.detach().numpy().T + model.fc.bias.detach().numpy())
    assert torch.onnx.is_in_onnx_export() is False
    np.testing.assert_allclose(model(x).detach().numpy(), expected, rtol=1e-6)


def test_export_refuses_and_names_what_to_save():
    model = Scaled()
    with pytest.raises(NotImplementedError, match=r"cannot write ONNX.*state_dict"):
        torch.onnx.export(model, (torch.zeros(1, 3),), "model.onnx")
