"""``mg.onnx``: PyTorch's ``torch.onnx`` spellings that programs carry, so that they import here.

PyTorch's example programs write ``import torch.onnx`` at the top of the file (the word language
model, fast neural style) and call ``torch.onnx.export`` only when asked to; model code asks
``torch.onnx.is_in_onnx_export()`` to take an export-friendly path. Without this module the import
line itself failed, so such a program could not train at all.

Nothing here writes ONNX: the engine has no graph to export (it runs eagerly on NumPy). So
:func:`is_in_onnx_export` answers False -- the true answer, as PyTorch's outside an export -- and
:func:`export` refuses, naming what to keep instead: the weights, ``mg.save(model.state_dict(), f)``.
``mg.onnx.operators`` holds the two shape helpers that model code calls outside an export too
(fairseq's ``SinusoidalPositionalEmbedding`` reads its input's shape with one).
"""

from __future__ import annotations

from typing import Any

__all__ = ["export", "is_in_onnx_export"]


def is_in_onnx_export() -> bool:
    """False: no ONNX export ever runs here (PyTorch's answer outside ``torch.onnx.export``)."""
    return False


def export(model: Any, args: Any = (), f: Any = None, *more: Any, **options: Any) -> None:
    """Refused: the engine cannot write an ONNX graph. Save the weights instead,
    ``mg.save(model.state_dict(), path)``, and load them into PyTorch to export from there."""
    raise NotImplementedError("mg.onnx.export: the engine cannot write ONNX (it has no graph to export); save "
                              "the weights with mg.save(model.state_dict(), path) and export from PyTorch")
