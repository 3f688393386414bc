"""PyTorch's ``torch.nn.modules.<submodule>`` paths: each layer at PyTorch's address, the base classes
code tests with ``isinstance`` or subclasses (``batchnorm._BatchNorm``, ``conv._ConvNd``,
``dropout._DropoutNd``, ``instancenorm._InstanceNorm``, ``loss._Loss``, ``loss._WeightedLoss``,
``pooling._MaxPoolNd`` and the other pooling bases), each layer under the bases
PyTorch puts it under, and a loss written for PyTorch as a ``_Loss`` / ``_WeightedLoss`` subclass.

Before, ``mg.nn.modules`` held only ``module`` and ``utils``: pytorch/examples' word_language_model
and super_resolution (``torch.nn.modules.linear.Linear``, ...), ``isinstance(m,
nn.modules.batchnorm._BatchNorm)`` and ``class DiceLoss(nn.modules.loss._Loss)`` were
AttributeErrors, ``_Loss(None, None, "sum")`` a TypeError, and ``CTCLoss``, ``CosineEmbeddingLoss``
were no ``_Loss``, ``CrossEntropyLoss``, ``NLLLoss``, ``MultiMarginLoss`` no ``_WeightedLoss``.
torch 2.13's layout and answers: ``tests/data/torch_nn_modules_paths.json``
(``tests/data/make_torch_nn_modules_paths.py``).
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import checkpoint

sys.path.insert(0, str(Path(__file__).parent / "data"))
from nn_modules_paths_cases import loss_subclasses  # noqa: E402

TORCH = json.loads((Path(__file__).parent / "data" / "torch_nn_modules_paths.json").read_text())
BASES = ("batchnorm._BatchNorm", "conv._ConvNd", "conv._ConvTransposeNd", "dropout._DropoutNd",
         "instancenorm._InstanceNorm", "loss._Loss", "loss._WeightedLoss", "pooling._AdaptiveAvgPoolNd",
         "pooling._AdaptiveMaxPoolNd", "pooling._AvgPoolNd", "pooling._LPPoolNd", "pooling._MaxPoolNd",
         "pooling._MaxUnpoolNd")  # the private bases PyTorch's nn.modules holds that code tests with isinstance
OFFERED = [(sub, name, bases) for sub, layers in sorted(TORCH["layers"].items())
           for name, bases in sorted(layers.items()) if hasattr(nn, name)]


def _resolve(dotted: str) -> type:
    sub, name = dotted.split(".")
    return getattr(importlib.import_module(f"minigrad_ckpt.nn.modules.{sub}"), name)


@pytest.mark.parametrize("sub, name, bases", OFFERED, ids=[f"{s}.{n}" for s, n, _ in OFFERED])
def test_each_layer_is_at_pytorchs_address_under_pytorchs_bases(sub, name, bases):
    module = importlib.import_module(f"minigrad_ckpt.nn.modules.{sub}")
    assert getattr(module, name) is getattr(nn, name) is getattr(nn.modules, name)
    assert name in module.__all__
    have = sorted(dotted for dotted in BASES if issubclass(getattr(nn, name), _resolve(dotted)))
    assert have == bases


def test_the_usual_isinstance_tests():
    assert isinstance(nn.BatchNorm2d(3), nn.modules.batchnorm._BatchNorm)
    assert not isinstance(nn.InstanceNorm2d(3), nn.modules.batchnorm._BatchNorm)
    assert isinstance(nn.ConvTranspose2d(2, 2, 3), nn.modules.conv._ConvNd)


def test_the_norm_base_at_pytorchs_batchnorm_address():
    # SAM's disable_running_stats, vis4d and mmseg's test-time adaptation write
    # ``from torch.nn.modules.batchnorm import _NormBase``; the import failed before.  torch 2.13's answers:
    from minigrad_ckpt.nn.modules.batchnorm import _NormBase

    norms = (nn.BatchNorm1d, nn.BatchNorm3d, nn.InstanceNorm1d, nn.InstanceNorm3d, nn.SyncBatchNorm,
             nn.LazyBatchNorm2d, nn.LazyInstanceNorm2d)
    assert all(issubclass(layer, _NormBase) for layer in norms)
    assert not any(issubclass(layer, _NormBase) for layer in (nn.GroupNorm, nn.LayerNorm, nn.LocalResponseNorm))


Dice, Weighted = loss_subclasses(nn)


def test_a_loss_subclass_gets_pytorchs_constructor():
    want = TORCH["subclass"]
    assert Dice().reduction == want["default"] and Dice(None, None, "sum").reduction == want["positional"]
    with pytest.warns(UserWarning, match=want["legacy_warning"].replace("(", r"\(").replace(")", r"\)")):
        assert Dice(size_average=False).reduction == want["legacy"]
    assert repr(Dice()) == want["repr"] and list(Dice().state_dict()) == want["state"]
    weighted = Weighted(mg.tensor([1.0, 2.0]), reduction="none")
    assert list(weighted.state_dict()) == want["weighted_state"] and weighted.reduction == want["weighted_reduction"]
    assert weighted(mg.tensor([1.0, 1.0]), mg.tensor([3.0, 4.0])).item() == want["weighted_value"]


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=str)
def test_a_weighted_loss_subclass_follows_the_layer_and_differentiates(dtype):
    weighted = Weighted(mg.tensor([1.0, 2.0])).to(dtype)
    assert weighted.weight.dtype == dtype
    target = mg.tensor([3.0, 4.0], dtype=dtype)
    grad = mg.func.grad(lambda x: weighted(x, target))(mg.tensor([1.0, 1.0], dtype=dtype))
    np.testing.assert_allclose(grad.numpy(), [3.0, 8.0])
    leaf = mg.tensor([1.0, 1.0], dtype=dtype, requires_grad=True)
    checkpoint(weighted, leaf, target, use_reentrant=False).backward()
    np.testing.assert_allclose(leaf.grad.numpy(), [3.0, 8.0])


def test_the_rebased_losses_keep_their_options_and_answers():
    # torch 2.13: CrossEntropyLoss(weight=[1, 2, 3], ignore_index=1, label_smoothing=0.1) on these -> 1.7035557
    ce = nn.CrossEntropyLoss(weight=mg.tensor([1.0, 2.0, 3.0]), ignore_index=1, label_smoothing=0.1)
    assert ce(mg.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]]), mg.tensor([0, 2])).item() == pytest.approx(1.7035557)
    assert list(nn.NLLLoss(mg.ones(3)).state_dict()) == ["weight"] and repr(nn.NLLLoss()) == "NLLLoss()"
    ctc, cos = nn.CTCLoss(blank=2, zero_infinity=True), nn.CosineEmbeddingLoss(0.5, reduction="sum")
    assert (ctc.blank, ctc.zero_infinity, ctc.reduction, repr(ctc)) == (2, True, "mean", "CTCLoss()")
    assert (cos.margin, cos.reduction, repr(cos)) == (0.5, "sum", "CosineEmbeddingLoss()")


def test_an_unknown_option_is_a_type_error_and_the_weighted_signature_is_pytorchs():
    # torch 2.13: nn.BCELoss(foo=1) -> TypeError (unexpected keyword argument 'foo'); a _Loss
    # subclass's super().__init__(foo=1) the same
    with pytest.raises(TypeError, match="foo"):
        nn.BCELoss(foo=1)
    with pytest.raises(TypeError, match="foo"):
        Dice(foo=1)
    import inspect

    assert list(inspect.signature(nn.BCELoss).parameters) == ["weight", "size_average", "reduce", "reduction"]
    assert list(inspect.signature(Weighted).parameters) == ["weight", "size_average", "reduce", "reduction"]
