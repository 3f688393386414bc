"""``mg.nn.utils.prune``, PyTorch's pruning: the pruning tutorial's program
(``tests/data/prune_programs.py``) against torch 2.13's answers (``tests/data/make_torch_prune.py``).
``import minigrad_ckpt.nn.utils.prune`` was a ModuleNotFoundError.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

sys.path.insert(0, str(Path(__file__).parent / "data"))
import prune_programs  # noqa: E402

TORCH = np.load(Path(__file__).parent / "data" / "torch_prune.npz")
RANDOM = ("random_pruned", "random_rows_pruned", "random_cols_pruned")  # counts only: the draws differ


def _same(key: str, ours, theirs, rtol: float) -> None:
    if theirs.dtype.kind == "U":
        ours, theirs = str(ours), str(theirs)
        if key.startswith("refusal_"):  # the shape in the message is printed by each library its own way
            ours, theirs = (s.split(" Found")[0] + s.split("|")[-1] for s in (ours, theirs))
        assert ours == theirs, key
    else:
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol, err_msg=key)


@pytest.mark.parametrize("dtype, rtol", [("float32", 2e-5), ("float64", 1e-12)])
def test_the_pruning_tutorial_matches_pytorch(dtype, rtol):
    ours = prune_programs.run(mg, dtype)
    theirs = {k.split("/", 1)[1]: TORCH[k] for k in TORCH.files if k.startswith(dtype + "/")}
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        _same(key, ours[key], theirs[key], rtol)


def test_a_pruned_layer_inside_a_checkpoint_gives_the_same_gradients():
    # the forward pre-hook's orig * mask runs inside the checkpointed segment and is replayed in backward
    plain, checkpointed = {}, {}
    prune_programs.local(mg, mg.float64, plain)
    prune_programs.local(mg, mg.float64, checkpointed,
                         wrap=lambda model, x: mg.checkpoint.checkpoint(model, x, use_reentrant=False))
    for key in ("output", "grad_weight_orig", "grad_bias_orig", "weight_removed"):
        np.testing.assert_allclose(checkpointed[key].detach().numpy(), plain[key].detach().numpy(), rtol=1e-12,
                                   err_msg=key)


@pytest.mark.parametrize("device, dtype", [("strict", mg.float64), ("strict-f32", mg.float32)])
def test_pruning_on_the_strict_devices(device, dtype):
    from minigrad_ckpt.testing import strict as _strict  # noqa: F401  (registers the strict devices)

    prune = mg.nn.utils.prune
    lin = mg.nn.Linear(3, 2).to(device=device, dtype=dtype)
    with mg.no_grad():
        lin.weight.copy_(mg.tensor([[0.5, -0.1, 2.0], [0.05, -3.0, 0.2]], dtype=dtype, device=device))
    prune.l1_unstructured(lin, "weight", amount=3)
    assert lin.weight_mask.device == lin.weight_orig.device and lin.weight_mask.dtype == dtype
    assert lin.weight_mask.cpu().tolist() == [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    lin(mg.ones(1, 3, dtype=dtype, device=device)).sum().backward()
    assert lin.weight_orig.grad.cpu().tolist() == [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    prune.remove(lin, "weight")
    assert isinstance(lin.weight, mg.nn.Parameter) and lin.weight.cpu().tolist()[1][1] == pytest.approx(-3.0)
