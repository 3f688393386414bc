"""The pruning tutorial's program (pytorch/tutorials intermediate_source/pruning_tutorial.py), written
against a library ``lib`` (``torch`` or ``minigrad_ckpt``): ``make_torch_prune.py`` records torch's
answers, ``tests/test_prune.py`` runs it on the engine.  Its LeNet is smaller (a 14x14 input) and its
weights come from a seeded NumPy generator; the random methods only report how much they pruned
(two engines' draws differ).  ``run`` returns ``{name: array}``.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np


def lenet(lib: Any, seed: int, dtype: Any) -> Any:
    nn, F = lib.nn, lib.nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 3)
            self.conv2 = nn.Conv2d(6, 8, 3)
            self.fc1 = nn.Linear(8 * 2 * 2, 12)
            self.fc2 = nn.Linear(12, 10)
            self.fc3 = nn.Linear(10, 7)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, int(x.nelement() / x.shape[0]))
            return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

    model = LeNet().to(dtype=dtype)
    rng = np.random.default_rng(seed)
    model.load_state_dict({k: lib.tensor(rng.standard_normal(tuple(v.shape)), dtype=dtype)
                           for k, v in model.state_dict().items()})
    return model


def _prune(lib: Any) -> Any:
    """``import torch.nn.utils.prune as prune`` (torch does not import it with ``torch.nn.utils``)."""
    return importlib.import_module(f"{lib.__name__}.nn.utils.prune")


def _names(pairs: Any) -> str:
    return ",".join(name for name, _ in pairs)


def local(lib: Any, dtype: Any, out: dict, wrap: Any = None) -> None:
    """Pruning conv1's weight and bias, again by channel norm, a backward pass, then ``remove``."""
    prune = _prune(lib)
    model = lenet(lib, 0, dtype)
    module = model.conv1
    prune.l1_unstructured(module, name="weight", amount=0.3)
    out["names_after_weight"] = _names(module.named_parameters()) + "|" + _names(module.named_buffers())
    out["weight_l1"] = module.weight
    prune.l1_unstructured(module, name="bias", amount=3)
    out["bias_l1"] = module.bias
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    out["weight_ln"] = module.weight
    hook = [h for h in module._forward_pre_hooks.values() if h._tensor_name == "weight"][0]
    out["history"] = ",".join(type(h).__name__ for h in hook)
    out["state_dict_keys"] = ",".join(model.state_dict().keys())
    x = lib.tensor(np.random.default_rng(1).standard_normal((2, 1, 14, 14)), dtype=dtype)
    y = model(x) if wrap is None else wrap(model, x)
    y.pow(2).sum().backward()
    out["output"] = y
    out["grad_weight_orig"] = module.weight_orig.grad
    out["grad_bias_orig"] = module.bias_orig.grad
    prune.remove(module, "weight")
    out["names_after_remove"] = _names(module.named_parameters()) + "|" + _names(module.named_buffers())
    out["weight_removed"] = module.weight
    out["removed_is_parameter"] = str(isinstance(module.weight, lib.nn.Parameter))


def global_and_custom(lib: Any, dtype: Any, out: dict) -> None:
    """Global L1 pruning (twice: the second prunes within what the first kept), a custom method,
    the random ones (how much), identity, custom_from_mask and is_pruned."""
    prune = _prune(lib)
    model = lenet(lib, 2, dtype)
    pairs = [(model.conv1, "weight"), (model.conv2, "weight"), (model.fc1, "weight"), (model.fc2, "weight"),
             (model.fc3, "weight")]
    prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured, amount=0.2)
    for i, (m, _) in enumerate(pairs):
        out[f"global_mask_{i}"] = m.weight_mask
    prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured, amount=40)
    for i, (m, _) in enumerate(pairs):
        out[f"global_again_mask_{i}"] = m.weight_mask

    class EveryOther(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    EveryOther.apply(model.fc3, "bias")
    out["every_other"] = model.fc3.bias_mask
    prune.l1_unstructured(model.fc3, name="bias", amount=2)
    out["every_other_then_l1"] = model.fc3.bias_mask
    prune.random_unstructured(model.fc2, name="bias", amount=0.25)
    out["random_pruned"] = np.array(float((model.fc2.bias_mask == 0).sum()))
    prune.identity(model.fc1, "bias")
    out["identity"] = model.fc1.bias_mask
    custom = prune.custom_from_mask(lib.nn.Linear(2, 3).to(dtype=dtype), "weight",
                                    lib.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=dtype))
    out["custom"] = custom.weight_mask
    out["custom_is_masked"] = str(bool((custom.weight == custom.weight_orig * custom.weight_mask).all()))
    out["is_pruned"] = f"{prune.is_pruned(model)},{prune.is_pruned(lenet(lib, 3, dtype))}"


def structured_random(lib: Any, dtype: Any, out: dict) -> None:
    prune = _prune(lib)
    lin = lib.nn.Linear(5, 6).to(dtype=dtype)
    prune.random_structured(lin, "weight", amount=2, dim=0)
    out["random_rows_pruned"] = np.array(float((lin.weight_mask.sum(1) == 0).sum()))
    prune.random_structured(lin, "weight", amount=0.4, dim=1)
    out["random_cols_pruned"] = np.array(float((lin.weight_mask.sum(0) == 0).sum()))


def refusals(lib: Any, dtype: Any, out: dict) -> None:
    prune = _prune(lib)
    for i, (call, kwargs) in enumerate([(prune.l1_unstructured, {"amount": -1}),
                                        (prune.l1_unstructured, {"amount": 1.5}),
                                        (prune.l1_unstructured, {"amount": "x"}),
                                        (prune.l1_unstructured, {"amount": 5}),
                                        (prune.ln_structured, {"amount": 1, "n": 2, "dim": 0})]):
        lin = lib.nn.Linear(2, 2).to(dtype=dtype)
        name = "bias" if call is prune.ln_structured else "weight"
        try:
            call(lin, name, **kwargs)
            out[f"refusal_{i}"] = "none"
        except Exception as e:  # noqa: BLE001 (the type and message are what is compared)
            out[f"refusal_{i}"] = f"{type(e).__name__}: {e}|" + _names(lin.named_parameters())
    try:
        prune.remove(lib.nn.Linear(2, 2), "weight")
    except ValueError as e:
        out["refusal_remove"] = "has to be pruned before pruning can be removed" in str(e)


def training(lib: Any, dtype: Any, out: dict) -> None:
    """SGD with momentum on a pruned layer: the optimizer moves ``weight_orig``, pruned entries get a
    zero gradient; the state dict loads into a layer given the pruned form by ``identity``."""
    prune = _prune(lib)
    lin = lenet(lib, 4, dtype).fc2
    prune.l1_unstructured(lin, "weight", amount=40)
    opt = lib.optim.SGD(lin.parameters(), lr=0.05, momentum=0.9)
    x = lib.tensor(np.random.default_rng(5).standard_normal((6, 12)), dtype=dtype)
    for i in range(3):
        opt.zero_grad()
        loss = lin(x).pow(2).mean()
        loss.backward()
        opt.step()
        out[f"train_loss_{i}"] = loss
    out["train_grad"] = lin.weight_orig.grad
    out["train_weight"] = lin.weight
    twin = lib.nn.Linear(12, 10).to(dtype=dtype)
    prune.identity(twin, "weight")
    twin.load_state_dict(lin.state_dict())
    out["loaded_output"] = twin(x)


PROGRAMS = {"local": local, "global_and_custom": global_and_custom, "structured_random": structured_random,
            "refusals": refusals, "training": training}


def run(lib: Any, dtype_name: str) -> dict:
    """Every program's answers, tensors as NumPy arrays (float64), the rest as strings."""
    dtype = getattr(lib, dtype_name)
    out: dict = {}
    for program in PROGRAMS.values():
        program(lib, dtype, out)
    return {k: (np.asarray(v.detach().numpy(), dtype=np.float64) if hasattr(v, "detach") else
                v if isinstance(v, np.ndarray) else str(v)) for k, v in out.items()}
