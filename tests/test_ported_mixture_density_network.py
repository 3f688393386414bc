"""``examples/ported/mixture_density_network.py`` (Bishop's toy inverse problem: pi by softmax,
sigma by exp, mu; the likelihood by logsumexp of hand-written or ``distributions.Normal`` log
densities, ``MixtureSameFamily`` as a check; samples by ``mg.multinomial`` and ``mg.normal``; Adam)
gives PyTorch's numbers: ``tests/data/make_ported_mixture_density_network.py`` ran the same source
as a torch program (offline; torch is not needed here).

Every run starts from the same weights; the draws of ``multinomial`` and ``normal`` are torch's,
replayed in order.  float64 agrees to 1e-10, float32 to round-off.
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
REF = np.load(HERE / "data" / "ported_mixture_density_network_reference.npz")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"ported_{name}", PORTED / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module.__name__] = module
    spec.loader.exec_module(module)
    return module


def _weights(prefix: str) -> dict[str, np.ndarray]:
    return {k[len(prefix):]: REF[k] for k in REF.files if k.startswith(prefix)}


@pytest.mark.parametrize("run, argv, float64", [("mdn_f64", ["--double"], True),
                                                ("mdn_dist_f64", ["--double", "--use-distributions"], True),
                                                ("mdn_f32", [], False)])
def test_mixture_density_network_matches_pytorch(monkeypatch, run, argv, float64):
    fns = [str(f) for f in REF[f"{run}|draw_fns"]]
    draws = iter(enumerate(fns))
    called = []

    def replay(fn):
        def draw(*args, **kwargs):
            i, expected = next(draws)
            assert expected == fn, f"draw {i}: the program called mg.{fn}, torch.{expected} at this point"
            called.append(fn)
            return mg.tensor(REF[f"{run}|draw|{i}"])
        return draw

    for fn in set(fns):
        monkeypatch.setattr(mg, fn, replay(fn))
    mdn = _load("mixture_density_network")
    start = _weights("mdn_f64|init|model|")
    with contextlib.redirect_stdout(io.StringIO()):
        history, model = mdn.main(argv, init=lambda key, m: m.load_state_dict(start))
    assert called == fns
    rtol, atol = (1e-10, 1e-12) if float64 else (2e-5, 2e-6)
    np.testing.assert_allclose(history, REF[f"{run}|history"], rtol=rtol, atol=atol)
    for name, want in _weights(f"{run}|final|model|").items():
        np.testing.assert_allclose(model.state_dict()[name].numpy(), want, rtol=1e-10 if float64 else 1e-4,
                                   atol=1e-12 if float64 else 1e-6, err_msg=name)
