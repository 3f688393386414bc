"""Record PyTorch's ``torch.nn.modules`` layout: for each submodule the layers its ``__all__`` names,
with each layer's base classes named as ``<submodule>.<class>`` where PyTorch's ``nn.modules`` holds
the base (``batchnorm._BatchNorm``, ``loss._Loss``, ...), and what a ``_Loss`` / ``_WeightedLoss``
subclass written for PyTorch sees: ``python tests/data/make_torch_nn_modules_paths.py`` writes
``tests/data/torch_nn_modules_paths.json`` (needs torch; the tests do not)."""

from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path

import torch
from torch import nn

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from nn_modules_paths_cases import loss_subclasses  # noqa: E402

SUBMODULES = ("activation", "adaptive", "batchnorm", "channelshuffle", "container", "conv", "distance", "dropout",
              "flatten", "fold", "instancenorm", "linear", "loss", "normalization", "padding", "pixelshuffle",
              "pooling", "rnn", "sparse", "transformer", "upsampling")
BASES = {"batchnorm": ("_BatchNorm",), "conv": ("_ConvNd", "_ConvTransposeNd"), "dropout": ("_DropoutNd",),
         "instancenorm": ("_InstanceNorm",), "loss": ("_Loss", "_WeightedLoss"),
         "pooling": ("_AdaptiveAvgPoolNd", "_AdaptiveMaxPoolNd", "_AvgPoolNd", "_LPPoolNd", "_MaxPoolNd",
                     "_MaxUnpoolNd")}


def bases_of(cls: type) -> list[str]:
    return sorted(f"{sub}.{base}" for sub, names in BASES.items() for base in names
                  if issubclass(cls, getattr(importlib.import_module(f"torch.nn.modules.{sub}"), base)))


def subclass_answers() -> dict[str, object]:
    Dice, Weighted = loss_subclasses(nn)  # noqa: N806 (classes)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        legacy = Dice(size_average=False).reduction
    weighted = Weighted(torch.tensor([1.0, 2.0]), reduction="none")
    return {"default": Dice().reduction, "positional": Dice(None, None, "sum").reduction, "legacy": legacy,
            "legacy_warning": str(caught[0].message), "repr": repr(Dice()), "state": list(Dice().state_dict()),
            "weighted_state": list(weighted.state_dict()), "weighted_reduction": weighted.reduction,
            "weighted_value": float(weighted(torch.tensor([1.0, 1.0]), torch.tensor([3.0, 4.0])))}


def main() -> None:
    layers = {}
    for sub in SUBMODULES:
        module = importlib.import_module(f"torch.nn.modules.{sub}")
        layers[sub] = {name: bases_of(getattr(module, name)) for name in module.__all__}
    out = {"torch": torch.__version__, "layers": layers, "subclass": subclass_answers()}
    (HERE / "torch_nn_modules_paths.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
