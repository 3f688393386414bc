"""Karpathy's makemore notebooks ("Neural Networks: Zero to Hero", parts 2 to 5), ported
(``examples/ported/makemore_*.py``), give PyTorch's numbers: the losses, each recorded step's gradients,
the final weights and what the samples drew, from torch's own draws (``torch.randn(..., generator=g)``
weights, ``randint`` minibatches, ``multinomial`` samples) that ``tests/data/make_ported_makemore.py``
recorded; float64 to 1e-10, float32 to round-off."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "data"))
from ported_replay import load_program, replay_draws  # noqa: E402

PROGRAMS = ["makemore_bigram", "makemore_mlp", "makemore_batchnorm", "makemore_backprop", "makemore_wavenet"]
RUNS = [(program, run) for program in PROGRAMS
        for run in ("f32", "f64")]


@pytest.mark.parametrize(("program", "run"), RUNS)
def test_makemore_matches_pytorch(monkeypatch, program, run):
    ref = np.load(HERE / "data" / f"ported_{program}_reference.npz")
    argv = [str(a) for a in ref[f"{run}|argv"] if a]
    called = replay_draws(monkeypatch, ref, run)
    with contextlib.redirect_stdout(io.StringIO()):
        history, tensors = load_program(program).main(argv)
    assert len(called) == sum(1 for f in ref[f"{run}|draw_fns"] if f)
    float64 = "--double" in argv
    rtol, atol = (1e-10, 1e-12) if float64 else (2e-5, 2e-6)
    np.testing.assert_allclose(history, ref[f"{run}|history"], rtol=rtol, atol=atol)
    expected = {k.split("|")[2]: ref[k] for k in ref.files if k.startswith(f"{run}|t|")}
    assert list(tensors) == list(expected)
    for name, want in expected.items():
        got = tensors[name].numpy()
        if name.startswith("cmp"):  # makemore_backprop's cmp(s, dt, t): exact, approximate, maxdiff
            check_cmp(got, want, float64, f"{run}: {name}")
            continue
        assert got.dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{run}: {name}")


def check_cmp(got, want, float64, what):
    """A manual gradient is autograd's exactly wherever it is in torch, and close where torch's is only
    close: torch's own kernels round some (``tanh``'s backward ``grad * (1 - y * y)`` fused, with one
    rounding fewer than the notebook's ``(1.0 - h**2) * dh``), so there the engine may be exact as well."""
    exact, approximate, maxdiff = got
    if want[0]:
        assert exact == 1 and maxdiff == 0, f"{what}: torch's manual gradient is autograd's exactly, here {maxdiff}"
    assert approximate == want[1], what
    assert maxdiff <= max(4 * want[2], 1e-15 if float64 else 1e-8), f"{what}: {maxdiff} (torch: {want[2]})"
