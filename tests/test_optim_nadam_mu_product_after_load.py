"""NAdam's ``mu_product`` after ``load_state_dict``: PyTorch casts the loaded 0-d state tensor to the
parameter's dtype (``step`` excepted), and its rule multiplies ``mu_product *= mu`` in that tensor's
own dtype -- float64 for float64 parameters from then on.  mg kept rounding the product to float32
(the default dtype's scalar), so a float64 run resumed from a state dict drifted from PyTorch's by
~1e-8 relative and from itself uninterrupted.  Numbers: torch 2.13's, recorded offline."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minigrad_ckpt as mg

# (dtype, decoupled_weight_decay) -> (parameter after 5 steps, mu_product, mu_product's dtype)
TORCH = {
    ("float64", False): (
        [1.1482687239002363, 1.7652654300862496, -0.2983085584137321], 0.019600366488375223, "float64"),
    ("float64", True): (
        [1.1282183183204166, 1.7149198096939324, -0.28780870649854934], 0.019600366488375223, "float64"),
    ("float32", False): (
        [1.1482688188552856, 1.7652654647827148, -0.29830852150917053], 0.019600365310907364, "float32"),
    ("float32", True): (
        [1.1282182931900024, 1.7149196863174438, -0.28780871629714966], 0.019600365310907364, "float32"),
}


def _run(dtype: str, decoupled: bool, device: str = "cpu", reload=lambda sd: copy.deepcopy(sd)):
    p = mg.nn.Parameter(mg.tensor([1.0, 2.0, -0.5], dtype=getattr(mg, dtype), device=device))
    opt = mg.optim.NAdam([p], lr=0.05, momentum_decay=0.1, decoupled_weight_decay=decoupled, weight_decay=0.1)
    for i in range(5):
        if i == 2:
            opt.load_state_dict(reload(opt.state_dict()))
        p.grad = mg.tensor([0.3 - i, 1.0 + 0.5 * i, -2.0], dtype=getattr(mg, dtype), device=device)
        opt.step()
    return p, opt


@pytest.mark.parametrize("decoupled", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mu_product_multiplies_in_its_loaded_dtype(dtype, decoupled):
    want_p, want_mu, want_dtype = TORCH[(dtype, decoupled)]
    p, opt = _run(dtype, decoupled)
    mu = opt.state[p]["mu_product"]
    assert str(mu.dtype) == want_dtype
    assert mu.item() == want_mu  # the product's own rounding, bit for bit
    np.testing.assert_allclose(p.detach().numpy(), want_p, rtol=1e-15 if dtype == "float64" else 1e-6, atol=0)


def test_mu_product_through_a_saved_file(tmp_path):
    """The same through ``mg.save``/``mg.load``, PyTorch's checkpoint idiom."""
    def through_file(sd):
        mg.save(sd, tmp_path / "opt.pt")
        return mg.load(tmp_path / "opt.pt")

    _, opt = _run("float64", False, reload=through_file)
    assert opt.state[opt.param_groups[0]["params"][0]]["mu_product"].item() == TORCH[("float64", False)][1]


def test_the_strict_device_steps_as_the_cpu():
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict device)

    p_cpu, _ = _run("float64", True)
    p_dev, opt = _run("float64", True, device="strict")
    assert p_dev.detach().cpu().numpy().tobytes() == p_cpu.detach().numpy().tobytes()
