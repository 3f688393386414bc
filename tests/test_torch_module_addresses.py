"""PyTorch's submodule addresses of names the engine keeps elsewhere: ``from torch.optim.adamw import
AdamW``, ``torch.nn.utils.clip_grad.clip_grad_norm_``, ``torch.nn.utils.convert_parameters``,
``torch.autograd.grad_mode.no_grad`` and ``torch.autograd.anomaly_mode.detect_anomaly`` run after the
rename.  Before, each was a ModuleNotFoundError (or an AttributeError reached as an attribute),
though the names themselves were offered at the package (``mg.optim.AdamW``, ...).  The names are
torch 2.13's ``__all__`` of each submodule (less ``torch.optim.adamw.adamw``, the functional form,
and ``enforce_grad_layout_policy``, not offered)."""

from __future__ import annotations

import importlib

import pytest

import minigrad_ckpt as mg

ADDRESSES = {
    "optim.adamw": {"AdamW": mg.optim.AdamW},
    "nn.utils.clip_grad": {"clip_grad_norm": mg.nn.utils.clip_grad_norm,
                           "clip_grad_norm_": mg.nn.utils.clip_grad_norm_,
                           "clip_grad_value_": mg.nn.utils.clip_grad_value_},
    "nn.utils.convert_parameters": {"parameters_to_vector": mg.nn.utils.parameters_to_vector,
                                    "vector_to_parameters": mg.nn.utils.vector_to_parameters},
    "autograd.grad_mode": {"no_grad": mg.no_grad, "enable_grad": mg.enable_grad,
                           "set_grad_enabled": mg.set_grad_enabled, "inference_mode": mg.inference_mode,
                           "set_multithreading_enabled": mg.autograd.set_multithreading_enabled},
    "autograd.anomaly_mode": {"detect_anomaly": mg.autograd.detect_anomaly,
                              "set_detect_anomaly": mg.autograd.set_detect_anomaly},
}


@pytest.mark.parametrize("address", sorted(ADDRESSES))
def test_each_address_imports_and_is_an_attribute_holding_the_engines_names(address: str) -> None:
    module = importlib.import_module(f"minigrad_ckpt.{address}")
    parent, _, leaf = address.rpartition(".")
    assert getattr(importlib.import_module(f"minigrad_ckpt.{parent}"), leaf) is module
    for name, engine in ADDRESSES[address].items():
        assert getattr(module, name) is engine, (address, name)


def test_an_adamw_from_its_address_steps_as_the_packages() -> None:
    from minigrad_ckpt.nn.utils.clip_grad import clip_grad_norm_
    from minigrad_ckpt.optim.adamw import AdamW

    w = mg.nn.Parameter(mg.tensor([3.0, -4.0], dtype=mg.float64))
    opt = AdamW([w], lr=0.1, weight_decay=0.5)
    (w * w).sum().backward()
    assert float(clip_grad_norm_([w], 1.0)) == 10.0
    opt.step()
    assert w.tolist() == pytest.approx([3.0 * (1 - 0.05) - 0.1, -4.0 * (1 - 0.05) + 0.1], rel=1e-7)  # Adam eps
