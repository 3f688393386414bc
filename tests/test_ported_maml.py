"""``examples/ported/maml.py`` (MAML on sinusoids: MAML-Pytorch's fast weights from
``autograd.grad(create_graph=True)`` with a second-order outer gradient, and functorch's step by
``func.functional_call``, ``func.grad`` and ``func.vmap``; Adam as the meta-optimizer) gives
PyTorch's numbers: ``tests/data/make_ported_maml.py`` ran the same source as a torch program
(offline; torch is not needed here).  The two ways agree with each other to round-off as well.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
PORTED = HERE.parent / "examples" / "ported"
REF = np.load(HERE / "data" / "ported_maml_reference.npz")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"ported_{name}", PORTED / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module.__name__] = module
    spec.loader.exec_module(module)
    return module


def _weights(prefix: str) -> dict[str, np.ndarray]:
    return {k[len(prefix):]: REF[k] for k in REF.files if k.startswith(prefix)}


@pytest.mark.parametrize("run, argv, float64", [
    ("maml_f64", ["--double"], True), ("maml_functional_f64", ["--double", "--functional"], True),
    ("maml_f32", [], False), ("maml_functional_f32", ["--functional"], False)])
def test_maml_matches_pytorch(run, argv, float64):
    maml = _load("maml")
    start = _weights("maml_f64|init|net|")
    with contextlib.redirect_stdout(io.StringIO()):
        history, net = maml.main(argv, init=lambda key, model: model.load_state_dict(start))
    rtol, atol = (1e-10, 1e-12) if float64 else (2e-5, 2e-6)
    np.testing.assert_allclose(history, REF[f"{run}|history"], rtol=rtol, atol=atol)
    np.testing.assert_allclose(history, REF["maml_f64|history"], rtol=1e-10 if float64 else 2e-5,
                               atol=1e-12 if float64 else 2e-6)  # the two ways: one meta-gradient
    for name, want in _weights(f"{run}|final|net|").items():
        np.testing.assert_allclose(net.state_dict()[name].numpy(), want, rtol=1e-10 if float64 else 1e-4,
                                   atol=1e-12 if float64 else 1e-6, err_msg=name)
