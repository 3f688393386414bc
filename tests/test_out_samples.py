"""PyTorch's ``out=`` on every function of the engine that PyTorch's operator database says takes it
(286 of them: the elementwise functions, linalg, special, the reductions, sort and its kin with a
tuple ``out=(values, indices)``): the result written into ``out`` and ``out`` returned, and an ``out``
of another dtype cast into or refused as torch does, with its words.

Expected: torch 2.13 on one sample of each function (``tests/data/make_torch_out_samples.py``).
The rules are ``minigrad_ckpt/out_arguments.py``'s; ``tests/test_out_arguments.py`` checks the rest
of ``out=`` (resizing and its warning, arguments that require grad, views) on the common functions.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg

SAMPLES = json.loads((Path(__file__).parent / "data" / "torch_out_samples.json").read_text())
#: Where the engine answers as NumPy, by design: a positional dim is NumPy's spelling (``docs/from-pytorch.md``),
#: and NumPy's cumsum and cumprod run in bool (PyTorch's, ``dim=``, refuse it as torch does)
NUMPY_SPELLING = {("cumsum", "0:bool"), ("cumprod", "0:bool")}
DTYPE_TRIALS = [(name, key) for name, case in SAMPLES.items() for key in case["other_dtypes"]
                if (name, key) not in NUMPY_SPELLING]


def _function(name: str):
    function = mg
    for part in name.split("."):
        function = getattr(function, part)
    return function


def decode(value):
    """A sample's argument back from JSON (``make_torch_out_samples.encode``'s inverse), as the engine's."""
    if not isinstance(value, dict):
        return value
    if "tensor" in value:
        data = np.array(value["tensor"], dtype=value["dtype"].replace("complex", "float")
                        if value["dtype"].startswith("complex") else value["dtype"])
        if value["dtype"].startswith("complex"):
            data = (data[..., 0] + 1j * data[..., 1]).astype(value["dtype"])
        return mg.tensor(data.reshape(value["shape"]))
    if "dtype_name" in value:
        return getattr(mg, value["dtype_name"])
    if "complex" in value:
        return complex(*value["complex"])
    if "dict" in value:
        return {k: decode(v) for k, v in value["dict"].items()}
    kind = "tuple" if "tuple" in value else "list"
    return (tuple if kind == "tuple" else list)(decode(v) for v in value[kind])


def _call(name: str, dtypes: list[str]):
    case = SAMPLES[name]
    outs = [mg.empty(0, dtype=getattr(mg, d)) for d in dtypes]
    mg.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a deprecated spelling's warning: not what is tested here)
        result = _function(name)(decode(case["input"]), *decode(case["args"]), **decode(case["kwargs"]),
                                 out=tuple(outs) if case["many"] else outs[0])
    return result, outs


#: Reductions PyTorch computes in out's dtype (a sum into int64 adds the values cast first): not a cast result
COMPUTED_IN_OUT = {"sum", "prod", "mean", "cumsum", "cumprod"}
#: torch's Bessel functions (Cephes' float32-grade fits) are 1e-5 from SciPy where the engine's are 1e-14:
#: compared to torch's within that
LOOSE = {f"special.{n}": 1e-4 for n in ("airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")}
#: Decompositions whose vectors are unique up to sign (phase, when complex): compared in magnitude
UP_TO_SIGN = {"linalg.eig", "linalg.eigh", "linalg.qr", "linalg.svd", "qr", "svd"}


def _magnitudes(plain: np.ndarray, out) -> np.ndarray:
    return np.hypot(plain[..., 0], plain[..., 1]) if out.dtype.kind == "c" else np.abs(plain)


def _plain(t) -> np.ndarray:
    got = t.numpy()
    return np.stack([got.real, got.imag], -1) if np.iscomplexobj(got) else got


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_out_holds_the_result_and_is_returned(name):
    case = SAMPLES[name]
    result, outs = _call(name, case["dtypes"])
    if case["many"]:
        assert isinstance(result, tuple) and len(result) == len(outs)
        assert all(r is o for r, o in zip(result, outs))
    else:
        assert result is outs[0]
    assert [str(o.dtype) for o in outs] == case["dtypes"]
    assert [list(o.shape) for o in outs] == case["shapes"]
    if case["values"] is not None:
        for out, want in zip(outs, case["values"]):
            if out.numel():
                got, want = _plain(out), np.asarray(want, dtype=float if out.dtype != mg.bool else bool)
                if name in UP_TO_SIGN:  # (magnitudes: a vector's sign or phase is LAPACK's choice)
                    got, want = _magnitudes(got, out), _magnitudes(want, out)
                np.testing.assert_allclose(got, want, rtol=LOOSE.get(name, 1e-9), atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name, trial", DTYPE_TRIALS, ids=[f"{n}-{k}" for n, k in DTYPE_TRIALS])
def test_out_of_another_dtype_is_cast_or_refused_as_torchs(name, trial):
    case = SAMPLES[name]
    want = case["other_dtypes"][trial]
    index, dtype = trial.split(":")
    dtypes = list(case["dtypes"])
    dtypes[int(index)] = dtype
    if "error" in want:
        with pytest.raises({"RuntimeError": RuntimeError, "TypeError": TypeError,
                            "NotImplementedError": NotImplementedError}[want["error"]]) as info:
            _call(name, dtypes)
        if "INTERNAL ASSERT" not in want["message"]:  # (torch's own assertion: refused here in words)
            assert str(info.value).split("\n")[0] == want["message"]
        return
    _, outs = _call(name, dtypes)
    assert [str(o.dtype) for o in outs] == want["dtypes"]
    assert [list(o.shape) for o in outs] == want["shapes"]
    if case["values"] is not None and name not in COMPUTED_IN_OUT:  # the result cast into out's dtype
        _, own = _call(name, case["dtypes"])
        for out, exact in zip(outs, own):
            np.testing.assert_array_equal(out.numpy(), exact.numpy().astype(out.numpy().dtype))
