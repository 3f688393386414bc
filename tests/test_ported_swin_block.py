"""``examples/ported/swin_block.py`` (microsoft/Swin-Transformer's window attention, shifted windows,
relative position bias, DropPath, PatchMerging; AdamW with param groups, LinearLR warmup then
CosineAnnealingLR through SequentialLR) gives PyTorch's numbers: ``tests/data/make_ported_swin_block.py``
ran the same source as a torch program (offline; torch is not needed here).

Both sides start from the same weights; DropPath's masks (``x.new_empty(shape).bernoulli_(keep)``)
are torch's, written back in the order torch drew them.  float64 agrees to 1e-10, float32 to round-off.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

HERE = Path(__file__).parent
PORTED = HERE.parent / "examples" / "ported"
REF = np.load(HERE / "data" / "ported_swin_block_reference.npz")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"ported_{name}", PORTED / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module.__name__] = module
    spec.loader.exec_module(module)
    return module


def _weights(prefix: str) -> dict[str, np.ndarray]:
    return {k[len(prefix):]: REF[k] for k in REF.files if k.startswith(prefix)}


@pytest.mark.parametrize("run, argv, float64", [("swin_f64", ["--double"], True), ("swin_f32", [], False)])
def test_swin_block_matches_pytorch(monkeypatch, run, argv, float64):
    masks = iter([REF[f"{run}|bernoulli|{i}"] for i in range(sum(k.startswith(f"{run}|bernoulli|") for k in REF.files))])
    drawn = []

    def torchs_mask(self, p=0.5, *, generator=None):  # DropPath's mask: torch's draw, written in place
        drawn.append(p)
        with mg.no_grad():
            return self.copy_(mg.tensor(next(masks)))

    monkeypatch.setattr(mg.Tensor, "bernoulli_", torchs_mask)
    swin = _load("swin_block")
    start = _weights("swin_f64|init|model|")

    def init(key, model):
        model.load_state_dict(start)

    with contextlib.redirect_stdout(io.StringIO()) as out:
        history, model = swin.main(argv, init=init)
    assert len(drawn) == sum(k.startswith(f"{run}|bernoulli|") for k in REF.files)
    assert "step 3 loss" in out.getvalue()
    rtol, atol = (1e-10, 1e-12) if float64 else (2e-5, 2e-6)
    np.testing.assert_allclose(history, REF[f"{run}|history"], rtol=rtol, atol=atol)
    state = model.state_dict()
    expected = _weights(f"{run}|final|model|")
    assert list(state) == list(expected)  # the None attn_mask buffer of the unshifted block is left out, as torch's
    for name, want in expected.items():
        got = state[name].numpy()
        assert got.dtype == want.dtype, name  # the index buffer stays int64 through model.to(float64)
        np.testing.assert_allclose(got, want, rtol=1e-10 if float64 else 1e-4, atol=1e-12 if float64 else 1e-6,
                                   err_msg=name)
