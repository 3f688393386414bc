"""Regenerate ``tests/data/torch_out_samples.json``: for every function of the engine that PyTorch's
operator database (``op_db``) says takes ``out=``, one of its samples and torch 2.13's answer to it
given ``out=`` -- the values in an ``out`` of the result's dtype, and, for each result, what an ``out``
of another dtype gets (the values, or the error's type and message).

    python tests/data/make_torch_out_samples.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from pathlib import Path

import torch
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.opinfo.core import SampleInput

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import minigrad_ckpt as mg  # noqa: E402  (which names the engine has)

OUT = Path(__file__).with_name("torch_out_samples.json")
#: The dtypes an ``out`` is tried in beside the result's own: the other float width, an integer, a
#: complex and bool (the ones a dtype rule of ``out=`` tells apart)
_OTHER_WIDTH = {torch.float64: torch.float32, torch.float32: torch.float64, torch.complex128: torch.complex64,
                torch.complex64: torch.complex128, torch.int64: torch.int32, torch.int32: torch.int64,
                torch.bool: torch.uint8, torch.uint8: torch.bool}
_TRIED = (torch.int64, torch.complex128, torch.bool)
#: Draws whose values differ run to run: only their dtypes and shapes are compared
RANDOM = frozenset({"bernoulli", "normal", "multinomial", "randn", "rand", "randint", "empty", "randperm",
                    "nn.functional.dropout"})


def _small_samples():
    """Samples of the functions whose every op_db sample is large (kron's 9 x 9 x 9 x 9, ...)."""
    g = torch.Generator().manual_seed(0)

    def t(*shape):
        return torch.randn(*shape, dtype=torch.float64, generator=g)

    return {"kron": SampleInput(t(2, 2), args=(t(2, 3),)),
            "slice_scatter": SampleInput(t(4, 3), args=(t(2, 3),), kwargs={"dim": 0, "start": 1, "end": 3}),
            "bmm": SampleInput(t(2, 2, 3), args=(t(2, 3, 2),)),
            "baddbmm": SampleInput(t(2, 2, 2), args=(t(2, 2, 3), t(2, 3, 2))),
            "addbmm": SampleInput(t(2, 2), args=(t(3, 2, 3), t(3, 3, 2)))}


def _resolve(lib, name: str):
    for part in name.split("."):
        lib = getattr(lib, part, None)
        if lib is None:
            return None
    return lib


def encode(value):
    """A sample's argument as JSON holds it: a tensor as its values (complex as [real, imag]) and dtype."""
    if isinstance(value, torch.Tensor):
        data = torch.view_as_real(value.resolve_conj()) if value.is_complex() else value
        return {"tensor": data.detach().tolist(), "shape": list(value.shape),
                "dtype": str(value.dtype).removeprefix("torch.")}
    if isinstance(value, torch.dtype):
        return {"dtype_name": str(value).removeprefix("torch.")}
    if isinstance(value, (tuple, list)):
        return {"tuple" if isinstance(value, tuple) else "list": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": {k: encode(v) for k, v in value.items()}}
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(type(value))


def _results(result) -> list:
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _empty_outs(results, dtypes):
    return [torch.empty(0, dtype=d) for d in dtypes] if len(results) > 1 or isinstance(results, tuple) else None


def _answer(fn, sample, outs: list, many: bool) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(sample.input, *sample.args, **sample.kwargs, out=tuple(outs) if many else outs[0])
        except Exception as exc:  # noqa: BLE001 (the answer is the error)
            return {"error": type(exc).__name__, "message": str(exc).split("\n")[0]}
    return {"dtypes": [str(o.dtype).removeprefix("torch.") for o in outs], "shapes": [list(o.shape) for o in outs]}


def _plain(t: torch.Tensor) -> list:
    return torch.view_as_real(t.resolve_conj()).tolist() if t.is_complex() else t.tolist()


def _size(sample) -> int:
    """How many numbers a sample holds (the smallest one torch answers is kept: a small file)."""
    parts = [sample.input, *sample.args, *sample.kwargs.values()]
    parts += [t for p in parts if isinstance(p, (tuple, list)) for t in p]
    return sum(t.numel() for t in parts if isinstance(t, torch.Tensor))


def _has_empty(sample) -> bool:
    parts = [sample.input, *sample.args, *sample.kwargs.values()]
    parts += [t for p in parts if isinstance(p, (tuple, list)) for t in p]
    return any(isinstance(t, torch.Tensor) and t.numel() == 0 for t in parts)


def _narrowed(sample):
    """``sample`` with its input cut to at most 3 along each dimension, where it is the only tensor
    (an elementwise function's sample is 5 x 5 x 5: the file stays small)."""
    alone = isinstance(sample.input, torch.Tensor) and _size(sample) == sample.input.numel()
    if not alone or sample.input.numel() <= 27:
        return sample
    small = sample.input[tuple(slice(0, 3) for _ in range(sample.input.ndim))].clone()
    return SampleInput(small, args=sample.args, kwargs=sample.kwargs)


def case(op, fn) -> dict | None:
    """The smallest sample of ``op`` torch answers with ``out=``, and its answers."""
    dtype = next((d for d in (torch.float64, torch.int64, torch.bool) if d in op.supported_dtypes("cpu")), None)
    if dtype is None:
        return None
    try:
        samples = [_small_samples()[op.name]] if op.name in _small_samples() else list(op.sample_inputs("cpu", dtype))
    except Exception:  # noqa: BLE001 (a sample generator torch itself cannot run here)
        return None
    # (a 0-d input last: mg.cumsum(x, 0) is NumPy's spelling, which has no axis 0 there; dim=0 is PyTorch's)
    zero_d_last = lambda s: (isinstance(s.input, torch.Tensor) and s.input.ndim == 0, _size(s))  # noqa: E731
    for sample in sorted(map(_narrowed, samples), key=zero_d_last):
        if _has_empty(sample):  # (torch skips some argument checks on empty tensors: gather's uint8 index)
            continue
        try:
            torch.manual_seed(0)
            result = fn(sample.input, *sample.args, **sample.kwargs)
            many = isinstance(result, (tuple, list))
            results = _results(result)
            outs = [torch.empty(0, dtype=r.dtype) for r in results]
            fn(sample.input, *sample.args, **sample.kwargs, out=tuple(outs) if many else outs[0])
            json.dumps(encode((sample.input, sample.args, sample.kwargs)))
        except Exception:  # noqa: BLE001 (a sample torch refuses, or one JSON cannot hold: the next)
            continue
        tried = {}
        for i, r in enumerate(results):
            for other in (_OTHER_WIDTH.get(r.dtype), *_TRIED):
                if other is None or other == r.dtype:
                    continue
                wrong = [torch.empty(0, dtype=x.dtype) for x in results]
                wrong[i] = torch.empty(0, dtype=other)
                tried[f"{i}:{str(other).removeprefix('torch.')}"] = _answer(fn, sample, wrong, many)
        return {"input": encode(sample.input), "args": encode(list(sample.args)), "kwargs": encode(sample.kwargs),
                "many": many, "dtypes": [str(o.dtype).removeprefix("torch.") for o in outs],
                "shapes": [list(o.shape) for o in outs],
                "values": None if op.name in RANDOM else [_plain(o) for o in outs], "other_dtypes": tried}
    return None


#: Other names of the same functions, asked with their op's samples
ALIASES = {"absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
           "arctan": "atan", "arctan2": "atan2", "arctanh": "atanh", "fix": "trunc", "greater": "gt",
           "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne", "negative": "neg",
           "inverse": "linalg.inv", "matrix_power": "linalg.matrix_power", "slogdet": "linalg.slogdet",
           "special.multigammaln": "mvlgamma", "special.digamma": "digamma", "special.erf": "erf",
           "special.erfc": "erfc", "special.erfinv": "erfinv", "special.exp2": "exp2", "special.expit": "sigmoid",
           "special.expm1": "expm1", "special.gammainc": "igamma", "special.gammaincc": "igammac",
           "special.gammaln": "lgamma", "special.i0": "i0", "special.log1p": "log1p", "special.logit": "logit",
           "special.logsumexp": "logsumexp", "special.psi": "digamma", "special.round": "round",
           "special.sinc": "sinc", "special.xlogy": "xlogy"}


def main() -> None:
    cases = {}
    ops = [(op.name, op) for op in op_db if op.supports_out]
    ops += [(alias, op) for alias, base in ALIASES.items() for op in op_db if op.name == base and op.supports_out]
    for name, op in ops:
        fn, mine = _resolve(torch, name), _resolve(mg, name)
        if name in cases or fn is None or mine is None or name.startswith("nn.functional."):
            continue  # (torch.nn.functional's few out= are its C++ bindings' own: the engine's layers take none)
        found = case(op, fn)
        if found is not None:
            cases[name] = found
    text = json.dumps(cases, indent=None, separators=(",", ":"))
    OUT.write_text(re.sub(r'\},"', '},\n"', text) + "\n")
    print(f"wrote {OUT}: {len(cases)} functions")


if __name__ == "__main__":
    main()
